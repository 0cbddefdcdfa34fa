import ReachSystem
import XCTest

@testable import ReachCore

/// Probes that keep a flow's hashed fields, answers read back, and traceroute's reading of
/// ICMP errors.
final class TraceProbeCodecTests: XCTestCase {
    let target = try! IPAddress.parse("198.51.100.7")
    let router = try! IPAddress.parse("198.18.0.1")

    func testEchoRequestsKeepOneChecksumWhateverTheSequence() {
        let codec = TraceProbeCodec(method: .icmp, family: .ipv4, transportLength: 40)
        let checksums = Set(
            (0..<300).map { sequence -> [UInt8] in
                let packet = codec.echoRequest(identifier: 0x1234, sequence: UInt16(sequence * 211))
                XCTAssertEqual(packet.count, 40)
                XCTAssertEqual(ICMPCodec.checksum(packet[...]), 0, "a valid checksum")
                return Array(packet[0..<6])
            })
        XCTAssertEqual(checksums.count, 1, "type, code, checksum and identifier never change")
    }

    func testUDPDataStartsWithTheSequence() {
        let codec = TraceProbeCodec(method: .udp, family: .ipv6, transportLength: 40)
        let data = codec.udpPayload(sequence: 0x0102)
        XCTAssertEqual(data.count, 32)
        XCTAssertEqual(Array(data.prefix(4)), [0x01, 0x02, 0x42, 0x43])
        // A length operand below the headers still leaves room for the sequence.
        XCTAssertEqual(TraceProbeCodec(method: .udp, family: .ipv4, transportLength: 8).dataLength, TraceSettings.minimumData)
    }

    func testQueuedErrorOfAUDPProbeBecomesAReply() {
        let codec = TraceProbeCodec(method: .udp, family: .ipv4, transportLength: 40)
        let queued = QueuedError(
            origin: .icmp, errno: .init(rawValue: 113), type: 11, code: 0, info: 0, offender: router,
            originalPacket: codec.udpPayload(sequence: 77), destination: target)
        let at = MonotonicInstant(nanoseconds: 5)
        let reply = codec.reply(to: queued, at: at, target: target)
        XCTAssertEqual(reply?.sequence, 77)
        XCTAssertEqual(reply?.responder, router)
        XCTAssertEqual(reply?.quoteOffset, 28)
        XCTAssertEqual(reply?.verdict(in: .ipv4), .onTheWay)
        // Another destination's error (the queue names it) and a local error are not answers.
        var elsewhere = queued
        elsewhere.destination = router
        XCTAssertNil(codec.reply(to: elsewhere, at: at, target: target))
        var local = queued
        local.origin = .local
        XCTAssertNil(codec.reply(to: local, at: at, target: target))
    }

    func testQueuedErrorOfAnEchoRequestBecomesAReply() {
        let codec = TraceProbeCodec(method: .icmp, family: .ipv6, transportLength: 40)
        let queued = QueuedError(
            origin: .icmp, errno: .init(rawValue: 113), type: 1, code: 4, info: 0, offender: target,
            originalPacket: codec.echoRequest(identifier: 9, sequence: 500))
        let reply = codec.reply(to: queued, at: MonotonicInstant(nanoseconds: 1), target: target)
        XCTAssertEqual(reply?.sequence, 500)
        XCTAssertEqual(reply?.verdict(in: .ipv6), .destination)
        XCTAssertEqual(reply?.quoteOffset, 40)
    }

    func testTCPSYNAndTheDestinationsAnswer() throws {
        let codec = TraceProbeCodec(method: .tcp, family: .ipv4, transportLength: 40)
        let source = try IPAddress.parse("198.18.0.2")
        let syn = codec.tcpSYN(sequence: 0xbeef, sourcePort: 40000, destinationPort: 80, source: source, destination: target)
        XCTAssertEqual(syn.count, 40)
        XCTAssertEqual(Array(syn[0..<8]), [0x9c, 0x40, 0, 80, 0xbe, 0xef, 0xbe, 0xef], "ports, then the sequence twice")
        XCTAssertEqual(syn[12] >> 4, 10, "data offset: 40 bytes")
        XCTAssertEqual(syn[13], 0x02, "SYN")
        let sum = TraceProbeCodec.pseudoHeaderSum(source: source, destination: target, length: 40) &+ ICMPCodec.wordSum(syn[...])
        XCTAssertEqual(ICMPCodec.checksum(wordSum: sum), 0, "a valid checksum over the pseudo-header")
        // The destination's reset: from port 80 to ours, acknowledging the sequence plus one.
        let reset: [UInt8] = [0, 80, 0x9c, 0x40, 0, 0, 0, 0, 0xbe, 0xef, 0xbe, 0xf0, 0x50, 0x14, 0, 0, 0, 0, 0, 0]
        func datagram(_ bytes: [UInt8], from: IPAddress) -> ReceivedDatagram {
            ReceivedDatagram(
                bytes: bytes, from: from, ttl: 64, kernelTimestamp: nil, monotonicTime: MonotonicInstant(nanoseconds: 3),
                includesIPHeader: false)
        }
        let reply = codec.tcpReply(to: datagram(reset, from: target), sourcePort: 40000, destinationPort: 80, target: target)
        XCTAssertEqual(reply?.sequence, 0xbeef)
        XCTAssertEqual(reply?.verdict(in: .ipv4), .destination)
        XCTAssertNil(codec.tcpReply(to: datagram(reset, from: router), sourcePort: 40000, destinationPort: 80, target: target))
        XCTAssertNil(codec.tcpReply(to: datagram(reset, from: target), sourcePort: 40001, destinationPort: 80, target: target))
        let quoted = QueuedError(
            origin: .icmp, errno: Errno(rawValue: 113), type: 11, code: 0, info: 0, offender: router, originalPacket: Array(syn.prefix(8)))
        XCTAssertEqual(codec.reply(to: quoted, at: MonotonicInstant(nanoseconds: 1), target: target)?.sequence, 0xbeef)
    }

    func testARawSocketsErrorQuotesTheEchoRequestAsTheQueueWould() throws {
        let codec = TraceProbeCodec(method: .icmp, family: .ipv4, transportLength: 40)
        let probe = codec.echoRequest(identifier: 0x4242, sequence: 9)
        // Time exceeded from the router: its IPv4 header, the ICMP header, the quoted IPv4
        // header (protocol 1, to the target), our echo request.
        let quotedHeader: [UInt8] = [0x45, 0, 0, 60, 0, 0, 0, 0, 1, 1, 0, 0, 198, 18, 0, 2] + target.bytes
        let icmp: [UInt8] = [11, 0, 0, 0, 0, 0, 0, 0] + quotedHeader + probe
        let outer: [UInt8] = [0x45, 0, 0, UInt8(20 + icmp.count), 0, 0, 0, 0, 64, 1, 0, 0] + router.bytes + [198, 18, 0, 2]
        var message = icmp
        let sum = ICMPCodec.checksum(message[...])
        (message[2], message[3]) = (UInt8(sum >> 8), UInt8(sum & 0xff))
        let datagram = ReceivedDatagram(
            bytes: outer + message, from: router, ttl: nil, kernelTimestamp: nil, monotonicTime: MonotonicInstant(nanoseconds: 7),
            includesIPHeader: true)
        let reply = codec.reply(to: datagram, identifier: 0x4242, checksIdentifier: true, target: target)
        XCTAssertEqual(reply?.sequence, 9)
        XCTAssertEqual(reply?.responder, router)
        XCTAssertEqual(reply?.quote, probe)
        XCTAssertEqual(reply?.quoteOffset, 20)
        XCTAssertNil(codec.reply(to: datagram, identifier: 0x4243, checksIdentifier: true, target: target), "another identifier")
    }

    func testTracerouteAnnotations() {
        let ipv4: [(UInt8, UInt8, UInt32, TraceVerdict)] = [
            (11, 0, 0, .onTheWay), (3, 3, 0, .destination), (3, 1, 0, .stopped(.hostUnreachable)),
            (3, 0, 0, .stopped(.networkUnreachable)), (3, 2, 0, .stopped(.protocolUnreachable)),
            (3, 13, 0, .stopped(.prohibited)), (3, 4, 1400, .stopped(.fragmentationNeeded(mtu: 1400))),
            (3, 5, 0, .stopped(.sourceRouteFailed)), (3, 14, 0, .stopped(.hostPrecedenceViolation)),
            (3, 15, 0, .stopped(.precedenceCutoff)), (3, 16, 0, .stopped(.unreachableCode(16))),
            (11, 1, 0, .stopped(.message(type: 11, code: 1))), (12, 0, 0, .stopped(.message(type: 12, code: 0))),
        ]
        for (type, code, info, verdict) in ipv4 {
            XCTAssertEqual(TraceVerdict.ipv4(type: type, code: code, info: info), verdict, "\(type)/\(code)")
        }
        let ipv6: [(UInt8, UInt8, UInt32, TraceVerdict)] = [
            (3, 0, 0, .onTheWay), (1, 4, 0, .destination), (1, 0, 0, .stopped(.networkUnreachable)),
            (1, 3, 0, .stopped(.hostUnreachable)), (1, 1, 0, .stopped(.prohibited)), (1, 6, 0, .stopped(.unreachableCode(6))),
            (2, 0, 1280, .stopped(.fragmentationNeeded(mtu: 1280))),
        ]
        for (type, code, info, verdict) in ipv6 {
            XCTAssertEqual(TraceVerdict.ipv6(type: type, code: code, info: info), verdict, "\(type)/\(code)")
        }
        let texts: [TraceAnnotation] = [
            .hostUnreachable, .networkUnreachable, .prohibited, .fragmentationNeeded(mtu: 1400), .unreachableCode(6),
        ]
        XCTAssertEqual(texts.map(\.description), ["!H", "!N", "!X", "!F-1400", "!<6>"])
        XCTAssertEqual(TraceAnnotation.message(type: 11, code: 1).description, "!<11-1>")
    }

    func testSettingsProblemsAndLengths() {
        var settings = TraceSettings()
        XCTAssertNil(settings.problem)
        XCTAssertEqual(settings.packetBytes(for: .ipv4), 60)
        XCTAssertEqual(settings.packetBytes(for: .ipv6), 80)
        settings.packetLength = 100
        XCTAssertEqual(settings.packetBytes(for: .ipv4), 100)
        settings.firstHop = 31
        XCTAssertNotNil(settings.problem)
    }
}

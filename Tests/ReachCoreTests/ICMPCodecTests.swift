import XCTest
@testable import ReachCore
import ReachSystem

final class ICMPCodecTests: XCTestCase {
    private let v4 = ICMPCodec(family: ICMPv4())
    private let v6 = ICMPCodec(family: ICMPv6())
    private let payload: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7]

    /// Hex fixtures with a comment after the bytes of each line.
    private func hex(_ text: String) -> [UInt8] {
        let digits = Array(
            text.split(separator: "\n").map {
                $0.split(separator: " ").prefix { $0.allSatisfy(\.isHexDigit) }.joined()
            }.joined())
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    private func ipv4(_ text: String) -> IPAddress { try! IPAddress.parse(text) }

    // MARK: - Build and checksum

    func testChecksumMatchesRFC1071Example() {
        // RFC 1071 §3: the one's complement sum of 0001 f203 f4f5 f6f7 is ddf2; its complement 220d.
        XCTAssertEqual(ICMPCodec.checksum(hex("0001 f203 f4f5 f6f7")[...]), 0x220d)
        // Odd length: the last byte is padded with a zero.
        XCTAssertEqual(ICMPCodec.checksum([0x01][...]), ~UInt16(0x0100))
    }

    func testEchoRequestIPv4() {
        let packet = v4.echoRequest(identifier: 0x1234, sequence: 1, payload: payload)
        XCTAssertEqual(
            packet,
            hex(
                """
                08 00        type 8 (echo request), code 0
                d9ba         checksum
                1234         identifier
                0001         sequence 1
                0001020304050607  data: byte i is i, as iputils fills it
                """))
        XCTAssertEqual(ICMPCodec.checksum(packet[...]), 0, "a filled-in checksum verifies to 0")
    }

    func testTemplatePatchMatchesAFullBuild() {
        // The incremental checksum (RFC 1624) must equal a full rebuild for every sequence.
        for size in [0, 1, 56, 1471] {
            let data = ICMPCodec.standardPayload(size: size)
            let template = v4.echoRequest(identifier: 0xfffe, sequence: 0, payload: data)
            for sequence: UInt16 in [0, 1, 2, 255, 256, 0x7fff, 0xfffe, 0xffff] {
                XCTAssertEqual(
                    v4.echoRequest(template: template, sequence: sequence),
                    v4.echoRequest(identifier: 0xfffe, sequence: sequence, payload: data), "size \(size) seq \(sequence)")
            }
        }
        let template6 = v6.echoRequest(identifier: 7, sequence: 0, payload: [1, 2])
        XCTAssertEqual(v6.echoRequest(template: template6, sequence: 300), v6.echoRequest(identifier: 7, sequence: 300, payload: [1, 2]))
    }

    func testSetSequencePatchesOneArrayProbeAfterProbe() {
        // The engine patches the same array for every probe, over the previous sequence: the
        // checksum comes from the template's, never from the bytes left by the last probe.
        let data = ICMPCodec.standardPayload(size: 56)
        var packet = v4.echoRequest(identifier: 0x0102, sequence: 0, payload: data)
        let templateChecksum = UInt16(packet[2]) << 8 | UInt16(packet[3])
        for sequence: UInt16 in [1, 2, 0xff00, 3, 0xffff, 0, 7] {
            v4.setSequence(sequence, in: &packet, templateChecksum: templateChecksum)
            XCTAssertEqual(packet, v4.echoRequest(identifier: 0x0102, sequence: sequence, payload: data), "seq \(sequence)")
        }
        var short: [UInt8] = [8, 0, 0]
        v4.setSequence(9, in: &short, templateChecksum: 0)
        XCTAssertEqual(short, [8, 0, 0], "too short to hold a sequence: left alone")
    }

    func testParseOfASliceCountsFromTheSliceStart() throws {
        // A socket hands over its buffer cut to the datagram; here the cut starts past 0.
        let datagram = hex("4500 0024 0000 0000 3f01 0000 c6120002 c6120001 0000 e1ba 1234 0001 0001020304050607")
        let buffer = [0xee, 0xee, 0xee] + datagram + [0xee]
        let slice = buffer[3..<(3 + datagram.count)]
        XCTAssertEqual(try v4.parse(slice, includesIPHeader: true), try v4.parse(datagram, includesIPHeader: true))
        let cut = buffer[3..<(3 + 20 + 3)]
        XCTAssertThrowsError(try v4.parse(cut, includesIPHeader: true)) {
            XCTAssertEqual($0 as? ParseError, ParseError(offset: 2, "need 2 bytes, have 1"))
        }
    }

    func testEchoRequestIPv6LeavesChecksumToKernel() {
        let packet = v6.echoRequest(identifier: 0xbeef, sequence: 0x0102, payload: [0xaa])
        // type 128, code 0, checksum 0 (the kernel computes it over the pseudo-header), id, seq, data.
        XCTAssertEqual(packet, hex("80 00 0000 beef 0102 aa"))
    }

    func testStandardPayloadWrapsAt256() {
        let data = ICMPCodec.standardPayload(size: 300)
        XCTAssertEqual(data.count, 300)
        XCTAssertEqual(data[255], 255)
        XCTAssertEqual(data[256], 0)
    }

    // MARK: - Replies

    func testReplyWithoutIPHeader() throws {
        // A datagram socket delivers the ICMP message alone.
        let message = try v4.parse(hex("0000 e1ba 1234 0001 0001020304050607"), includesIPHeader: false)
        XCTAssertEqual(message.type, ICMPType(0))
        XCTAssertEqual(message.body, .echo(identifier: 0x1234, sequence: 1, payload: payload[...]))
        XCTAssertEqual(message.checksumValid, true)
        XCTAssertEqual(message.length, 16)
        XCTAssertNil(message.ipTTL)
    }

    func testReplyWithIPv4Header() throws {
        let datagram = hex(
            """
            4500 0024 0000 0000 3f01 0000 c6120002 c6120001
            0000 e1ba 1234 0001 0001020304050607
            """)
        // 45: version 4, IHL 5; ttl 0x3f = 63; protocol 1; source 198.18.0.2, destination 198.18.0.1.
        let message = try v4.parse(datagram, includesIPHeader: true)
        XCTAssertEqual(message.ipTTL, 63)
        XCTAssertNil(message.ipSource, "a reply's source is the socket's to say")
        XCTAssertEqual(message.body, .echo(identifier: 0x1234, sequence: 1, payload: payload[...]))
        XCTAssertEqual(message.length, 16, "the IP header is not counted in the bytes iputils prints")
    }

    func testReplyWithIPv4OptionsIsStrippedByIHL() throws {
        // IHL 6: a 24-byte header with one 4-byte option (NOP NOP NOP EOL).
        let datagram = hex(
            """
            4600 0028 0000 0000 4001 0000 c6120002 c6120001 01010100
            0000 e1ba 1234 0001 0001020304050607
            """)
        let message = try v4.parse(datagram, includesIPHeader: true)
        XCTAssertEqual(message.ipTTL, 64)
        XCTAssertEqual(message.body, .echo(identifier: 0x1234, sequence: 1, payload: payload[...]))
    }

    func testICMPv6Reply() throws {
        let message = try v6.parse(hex("8100 0000 beef 0102 aabb"), includesIPHeader: false)
        XCTAssertEqual(message.type, ICMPType(129))
        XCTAssertEqual(message.body, .echo(identifier: 0xbeef, sequence: 0x0102, payload: [0xaa, 0xbb][...]))
        XCTAssertNil(message.checksumValid, "ICMPv6 checksums need the pseudo-header; the kernel checks them")
    }

    func testChecksumFromTheHeaderWhenTheDataIsKnown() throws {
        // An odd data length: the last byte counts as a high byte, in the data's sum as in the whole.
        let data = ICMPCodec.standardPayload(size: 57)
        let dataSum = ICMPCodec.wordSum(data[...])
        var reply = v4.echoRequest(identifier: 0x0102, sequence: 3, payload: data)
        reply[0] = 0 // an echo reply, its checksum filled in again
        reply[2] = 0
        reply[3] = 0
        let sum = ICMPCodec.checksum(reply[...])
        reply[2] = UInt8(sum >> 8)
        reply[3] = UInt8(sum & 0xff)
        let echo = try XCTUnwrap(v4.echo(in: reply[...], includesIPHeader: false))
        XCTAssertEqual(v4.checksumValid(of: echo, in: reply[...]), true)
        XCTAssertEqual(v4.checksumValid(of: echo, in: reply[...], dataWordSum: dataSum), true)
        reply[5] ^= 0x10 // the identifier changed on the way
        let changed = try XCTUnwrap(v4.echo(in: reply[...], includesIPHeader: false))
        XCTAssertEqual(v4.checksumValid(of: changed, in: reply[...]), false)
        XCTAssertEqual(v4.checksumValid(of: changed, in: reply[...], dataWordSum: dataSum), false)
        let echo6 = try XCTUnwrap(v6.echo(in: hex("8100 0000 beef 0102 aabb")[...], includesIPHeader: false))
        XCTAssertNil(v6.checksumValid(of: echo6, in: hex("8100 0000 beef 0102 aabb")[...], dataWordSum: 0))
    }

    func testCorruptedReplyIsFlagged() throws {
        var bytes = hex("0000 e1ba 1234 0001 0001020304050607")
        bytes[10] ^= 0xff
        let message = try v4.parse(bytes, includesIPHeader: false)
        XCTAssertEqual(message.checksumValid, false)
    }

    // MARK: - Errors quoting the original datagram

    func testDestinationUnreachableQuotingIHL5() throws {
        let datagram = hex(
            """
            0301 0000 00000000                       type 3 code 1 (host unreachable), unused
            4500 0054 0000 4000 4001 0000 c6120002 cb007101   quoted IPv4: proto 1, to 203.0.113.1
            0800 0000 4321 0007                      quoted echo request: id 0x4321, seq 7
            """)
        let message = try v4.parse(datagram, includesIPHeader: false)
        XCTAssertEqual(message.type, ICMPv4.destinationUnreachable)
        XCTAssertEqual(message.code, 1)
        guard case .error(let info, let destination, let echo?) = message.body else { return XCTFail("\(message.body)") }
        XCTAssertEqual(info, 0)
        XCTAssertEqual(destination, ipv4("203.0.113.1"))
        XCTAssertEqual(echo.identifier, 0x4321)
        XCTAssertEqual(echo.sequence, 7)
        XCTAssertEqual(ICMPv4().describe(type: message.type, code: message.code, info: info), "Destination Host Unreachable")
    }

    func testTimeExceededQuotingIHL7WithinIPv4Header() throws {
        // A raw socket delivers the router's IP header too; the quote has 8 bytes of options.
        let datagram = hex(
            """
            4500 0044 0000 0000 4001 0000 c6120001 c6120002
            0b00 0000 00000000
            4700 005c 0000 4000 0101 0000 c6120002 c6120102 01010101 01010100
            0800 0000 4321 0009
            """)
        let message = try v4.parse(datagram, includesIPHeader: true)
        XCTAssertEqual(message.ipSource, ipv4("198.18.0.1"))
        guard case .error(_, let destination, let echo?) = message.body else { return XCTFail("\(message.body)") }
        XCTAssertEqual(destination, ipv4("198.18.1.2"))
        XCTAssertEqual(echo.sequence, 9)
        XCTAssertEqual(ICMPv4().describe(type: message.type, code: message.code, info: 0), "Time to live exceeded")
    }

    func testICMPv6TimeExceededQuotingIPv6Header() throws {
        let datagram = hex(
            """
            0300 0000 00000000
            6000 0000 0010 3a01 20010db8000000000000000000000002 20010db8000100000000000000000002
            8000 0000 4321 0003
            """)
        let message = try v6.parse(datagram, includesIPHeader: false)
        guard case .error(_, let destination, let echo?) = message.body else { return XCTFail("\(message.body)") }
        XCTAssertEqual(destination, try IPAddress.parse("2001:db8:1::2"))
        XCTAssertEqual(echo.identifier, 0x4321)
        XCTAssertEqual(echo.sequence, 3)
        XCTAssertEqual(ICMPv6().describe(type: message.type, code: message.code, info: 0), "Time exceeded: Hop limit")
        XCTAssertEqual(
            ICMPv6().describe(type: ICMPv6.destinationUnreachable, code: 3, info: 0), "Destination unreachable: Address unreachable")
    }

    func testErrorQuotingSomethingElseHasNoEcho() throws {
        // Port unreachable for a UDP datagram (protocol 17): not about any probe.
        let datagram = hex("0303 0000 00000000 4500 001c 0000 0000 4011 0000 c6120002 c6120001 8000 0035 0008 0000")
        let message = try v4.parse(datagram, includesIPHeader: false)
        guard case .error(_, _, let echo) = message.body else { return XCTFail("\(message.body)") }
        XCTAssertNil(echo)
    }

    // MARK: - Never trap

    /// What parsing the first `length` bytes of a datagram must give.
    private enum Outcome: Equatable {
        case parsed(ICMPMessage)
        case thrown(ParseError)
    }

    /// Where a cut inside the 8-byte ICMP header leaves the reader, for each length 0..<8:
    /// the offset of the field it could not read and that field's size. Echo: type, code,
    /// checksum, identifier, sequence; error: type, code, checksum, then a 4-byte word.
    private static let echoHeaderCuts = [(0, 1), (1, 1), (2, 2), (2, 2), (4, 2), (4, 2), (6, 2), (6, 2)]
    private static let errorHeaderCuts = [(0, 1), (1, 1), (2, 2), (2, 2), (4, 4), (4, 4), (4, 4), (4, 4)]

    private static func headerCut(_ cuts: [(Int, Int)], at length: Int) -> Outcome {
        let (offset, size) = cuts[length]
        return .thrown(ParseError(offset: offset, "need \(size) bytes, have \(length - offset)"))
    }

    private func outcome(_ codec: ICMPCodec, _ bytes: [UInt8], includesIPHeader: Bool) -> Outcome {
        do {
            return .parsed(try codec.parse(bytes, includesIPHeader: includesIPHeader))
        } catch let error as ParseError {
            return .thrown(error)
        } catch {
            XCTFail("not a ParseError: \(error)")
            return .thrown(ParseError(offset: -1, "\(error)"))
        }
    }

    /// An echo reply behind its IPv4 header, cut at every length: the IPv4 header first, then
    /// the ICMP header (offsets count from the ICMP header), then the data byte by byte.
    func testEveryTruncationOfAnIPv4EchoReply() {
        let datagram = hex("4500 0024 0000 0000 3f01 0000 c6120002 c6120001 0000 e1ba 1234 0001 0001020304050607")
        XCTAssertEqual(datagram.count, 36)
        for length in 0...datagram.count {
            let expected: Outcome
            switch length {
            case 0: expected = .thrown(ParseError(offset: 0, "empty IPv4 header"))
            case 1..<20: expected = .thrown(ParseError(offset: 0, "IPv4 header of 20 bytes, have \(length)"))
            case 20..<28: expected = Self.headerCut(Self.echoHeaderCuts, at: length - 20)
            default:
                // The header whole: an echo reply with what data there is; only the whole
                // datagram's checksum verifies.
                expected = .parsed(
                    ICMPMessage(
                        type: ICMPType(0), code: 0, checksum: 0xe1ba,
                        body: .echo(identifier: 0x1234, sequence: 1, payload: payload.prefix(length - 28)),
                        ipTTL: 63, ipSource: nil, checksumValid: length == 36, length: length - 20))
            }
            XCTAssertEqual(outcome(v4, Array(datagram.prefix(length)), includesIPHeader: true), expected, "length \(length)")
        }
    }

    /// A Destination Unreachable quoting an IPv4 echo request, cut at every length: the ICMP
    /// header, then the quoted IPv4 header (offsets count from the message), then the quoted
    /// echo, which names the probe only when its 8 bytes are all there.
    func testEveryTruncationOfAnIPv4ErrorQuote() {
        let datagram = hex("0301 0000 00000000 4500 0054 0000 4000 4001 0000 c6120002 cb007101 0800 0000 4321 0007")
        XCTAssertEqual(datagram.count, 36)
        for length in 0...datagram.count {
            let expected: Outcome
            switch length {
            case 0..<8: expected = Self.headerCut(Self.errorHeaderCuts, at: length)
            case 8: expected = .thrown(ParseError(offset: 8, "quoted header: empty IPv4 header"))
            case 9..<28: expected = .thrown(ParseError(offset: 8, "quoted header: IPv4 header of 20 bytes, have \(length - 8)"))
            default:
                expected = .parsed(
                    ICMPMessage(
                        type: ICMPv4.destinationUnreachable, code: 1, checksum: 0,
                        body: .error(
                            info: 0, quotedDestination: ipv4("203.0.113.1"),
                            quotedEcho: length == 36 ? (identifier: 0x4321, sequence: 7) : nil),
                        ipTTL: nil, ipSource: nil, checksumValid: false, length: length))
            }
            XCTAssertEqual(outcome(v4, Array(datagram.prefix(length)), includesIPHeader: false), expected, "length \(length)")
        }
    }

    /// An ICMPv6 Time Exceeded quoting an IPv6 echo request, cut at every length: the quoted
    /// header needs all its 40 bytes, the quoted echo all its 8. The kernel checks ICMPv6
    /// checksums: none is judged here.
    func testEveryTruncationOfAnICMPv6ErrorQuote() throws {
        let datagram = hex(
            """
            0300 0000 00000000 6000 0000 0010 3a01
            20010db8000000000000000000000002 20010db8000100000000000000000002
            8000 0000 4321 0003
            """)
        XCTAssertEqual(datagram.count, 56)
        let destination = try IPAddress.parse("2001:db8:1::2")
        for length in 0...datagram.count {
            let expected: Outcome
            switch length {
            case 0..<8: expected = Self.headerCut(Self.errorHeaderCuts, at: length)
            case 8..<48:
                expected = .thrown(ParseError(offset: 8, "quoted header: quoted IPv6 header needs 40 bytes, have \(length - 8)"))
            default:
                expected = .parsed(
                    ICMPMessage(
                        type: ICMPv6.timeExceeded, code: 0, checksum: 0,
                        body: .error(info: 0, quotedDestination: destination, quotedEcho: length == 56 ? (0x4321, 3) : nil),
                        ipTTL: nil, ipSource: nil, checksumValid: nil, length: length))
            }
            XCTAssertEqual(outcome(v6, Array(datagram.prefix(length)), includesIPHeader: false), expected, "length \(length)")
        }
    }

    func testMalformedHeadersNameTheOffset() {
        XCTAssertThrowsError(try v4.parse([], includesIPHeader: true)) { XCTAssertEqual(($0 as? ParseError)?.offset, 0) }
        // IHL 4 is below the minimum.
        XCTAssertThrowsError(try v4.parse(hex("4400 0000 0000 0000 4001 0000 00000000 00000000 0000"), includesIPHeader: true)) {
            XCTAssertEqual(($0 as? ParseError)?.offset, 0)
        }
        // An IPv6 header where IPv4 is expected.
        XCTAssertThrowsError(try v4.parse(hex("6000 0000 0000 0000 0000 0000 0000 0000 0000 0000"), includesIPHeader: true))
        // An ICMP header cut after 3 bytes: the checksum's second byte is missing at offset 2.
        XCTAssertThrowsError(try v4.parse([0, 0, 0], includesIPHeader: false)) { XCTAssertEqual(($0 as? ParseError)?.offset, 2) }
        // A quote that claims IHL 15 (60 bytes) with 20 present.
        let quote = hex("0301 0000 00000000 4f00 0054 0000 4000 4001 0000 c6120002 cb007101")
        XCTAssertThrowsError(try v4.parse(quote, includesIPHeader: false)) { XCTAssertEqual(($0 as? ParseError)?.offset, 8) }
    }

    func testUnknownTypesSurviveAsNumbers() throws {
        let message = try v4.parse(hex("2a07 0000 0000 0000"), includesIPHeader: false)
        XCTAssertEqual(message.type.rawValue, 42)
        XCTAssertEqual(message.body, .other)
        XCTAssertEqual(ICMPv4().describe(type: message.type, code: 7, info: 0), "Bad ICMP type: 42")
        XCTAssertEqual(ICMPv4().describe(type: ICMPv4.destinationUnreachable, code: 99, info: 0), "Dest Unreachable, Bad Code: 99")
    }

    /// iputils -p: the pattern repeated over the data; no pattern, the standard payload.
    func testPatternPayload() {
        XCTAssertEqual(ICMPCodec.payload(size: 5, pattern: [0x0a, 0x1b]), [0x0a, 0x1b, 0x0a, 0x1b, 0x0a])
        XCTAssertEqual(ICMPCodec.payload(size: 0, pattern: [0xff]), [])
        XCTAssertEqual(ICMPCodec.payload(size: 300, pattern: []), ICMPCodec.standardPayload(size: 300))
    }
}

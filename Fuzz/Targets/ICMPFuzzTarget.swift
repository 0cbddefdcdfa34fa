import ReachCore
import ReachSystem

/// What an ICMP socket delivers, to the codec and to a ping engine that has sent 16 probes.
/// The input (Fuzz/capture-icmp-seeds.py writes real ones):
///
///     flags: bit 0 IPv6, bit 1 raw socket (IPv4 datagrams then start with the IP header)
///     identifier (2 bytes, big-endian), target address (4 or 16 bytes)
///     records until the end, by the low 2 bits of their first byte:
///       0  length (2), datagram                        a datagram from the socket
///       1  type, code, info (4), length (2), probe     an ICMP error from the error queue
///       2  type, code, info (4), length (2), probe     a local error from the error queue
///       3  milliseconds                                the clock moves on (timeouts, probes due)
///
/// Besides "no trap": what is not an answer to a probe changes no count, a probe counts as
/// received once, and the statistics stay consistent (received <= transmitted, every good
/// reply timed, nothing outstanding after the end).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICMP(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    var input = FuzzInput.Reader(FuzzInput.bytes(start, count))
    guard let flags = input.byte(), let identifier = input.uint16() else { return 0 }
    let family: AddressFamily = flags & 1 == 0 ? .ipv4 : .ipv6
    guard let addressBytes = input.bytes(family.addressLength),
        let target = IPAddress(family: family, bytes: Array(addressBytes))
    else { return 0 }
    let raw = flags & 2 != 0
    var run = EngineRun(target: target, identifier: identifier, includesIPHeader: raw && family == .ipv4)
    while let op = input.byte() {
        switch op & 3 {
        case 0:
            guard let datagram = input.lengthPrefixed() else { return 0 }
            parseEverywhere(datagram)
            run.deliver(datagram)
        case 1, 2:
            guard let type = input.byte(), let code = input.byte(), let high = input.uint16(), let low = input.uint16(),
                let probe = input.lengthPrefixed()
            else { return 0 }
            parseEverywhere(probe)
            run.deliverQueued(probe, type: type, code: code, info: UInt32(high) << 16 | UInt32(low), local: op & 3 == 2)
        default:
            guard let milliseconds = input.byte() else { return 0 }
            run.advance(by: Int64(milliseconds) * 1_000_000)
        }
    }
    run.stop()
    return 0
}

/// The codec alone, both families, with and without an IPv4 header in front.
private func parseEverywhere(_ bytes: [UInt8]) {
    for family in [icmpFamily(for: .ipv4), icmpFamily(for: .ipv6)] {
        for includesIPHeader in [false, true] {
            guard let message = try? ICMPCodec(family: family).parse(bytes, includesIPHeader: includesIPHeader) else { continue }
            precondition(message.length >= 4 && message.length <= bytes.count, "length \(message.length) of \(bytes.count) bytes")
            if case .echo(_, _, let payload) = message.body {
                precondition(payload.count == message.length - ICMPCodec.headerLength, "echo payload of \(payload.count)")
            }
            _ = family.describe(type: message.type, code: message.code, info: 0)
        }
    }
}

/// A ping engine with 16 probes out, fed the input, its counts checked after every event.
private struct EngineRun {
    var engine: PingEngine
    let target: IPAddress
    let includesIPHeader: Bool
    var now = MonotonicInstant(nanoseconds: 0)
    /// Sequences a reply was counted for.
    var received = Set<UInt16>()

    init(target: IPAddress, identifier: UInt16, includesIPHeader: Bool) {
        self.target = target
        self.includesIPHeader = includesIPHeader
        let configuration = PingConfiguration(count: 16, interval: .milliseconds(1), timeout: .milliseconds(100))
        engine = PingEngine(target: target, identifier: identifier, configuration: configuration)
        for _ in 0..<16 {
            sendDue()
            now += .milliseconds(1)
        }
        precondition(engine.statistics[0].transmitted == 16, "sent \(engine.statistics[0].transmitted) of 16")
    }

    mutating func sendDue() {
        while let probe = engine.nextProbe(now: now) {
            let before = engine.statistics[0]
            check(engine.didSend(probe, realtime: RealtimeInstant(nanoseconds: now.nanoseconds), monotonic: now), before: before)
        }
    }

    mutating func deliver(_ bytes: [UInt8]) {
        let before = engine.statistics[0]
        let datagram = ReceivedDatagram(
            bytes: bytes, from: target, ttl: nil, kernelTimestamp: nil, monotonicTime: now, includesIPHeader: includesIPHeader)
        if let event = engine.receive(datagram) { check(event, before: before) }
    }

    mutating func deliverQueued(_ probe: [UInt8], type: UInt8, code: UInt8, info: UInt32, local: Bool) {
        let before = engine.statistics[0]
        let error = QueuedError(
            origin: local ? .local : .icmp, errno: local ? .noBufferSpace : .hostUnreachable, type: type, code: code,
            info: info, offender: target, originalPacket: probe)
        if let event = engine.receive(error) { check(event, before: before) }
    }

    mutating func advance(by nanoseconds: Int64) {
        now += .nanoseconds(nanoseconds)
        let before = engine.statistics[0]
        for event in engine.advance(now: now) { check(event, before: before) }
        if !engine.isFinished { sendDue() }
    }

    mutating func stop() {
        let before = engine.statistics[0]
        let events = engine.stop()
        for event in events { check(event, before: before) }
        precondition(engine.isFinished && engine.outstanding == 0, "\(engine.outstanding) outstanding after the end")
        if case .finished(let statistics)? = events.last {
            precondition(statistics == engine.statistics, "finished with other statistics than the engine's")
        }
    }

    /// What one event may change in the statistics, and what they must always be.
    mutating func check(_ event: PingEvent, before: PingStatistics) {
        let after = engine.statistics[0]
        switch event {
        case .unexpected:
            precondition(after == before, "an unexpected packet changed the statistics")
        case .reply(let reply):
            precondition(reply.sequence >= 1 && Int(reply.sequence) <= after.transmitted, "reply to \(reply.sequence), not sent")
            let counted = !reply.duplicate && !reply.corrupted
            precondition(after.received == before.received + (counted ? 1 : 0), "reply counted \(after.received - before.received) times")
            if counted {
                precondition(received.insert(reply.sequence).inserted, "sequence \(reply.sequence) received twice")
            }
        case .icmpError, .localError:
            precondition(after.received == before.received && after.errors == before.errors + 1, "error miscounted")
        default:
            break
        }
        precondition(after.received <= after.transmitted, "received \(after.received) of \(after.transmitted)")
        precondition(after.timed == after.received + after.duplicates, "timed \(after.timed)")
        precondition(engine.outstanding >= 0 && engine.outstanding <= after.transmitted, "outstanding \(engine.outstanding)")
        if after.timed > 0 {
            precondition(after.minimumMicroseconds <= after.maximumMicroseconds, "min above max")
            _ = after.mdevMicroseconds
        }
        _ = after.lossPercent
    }
}

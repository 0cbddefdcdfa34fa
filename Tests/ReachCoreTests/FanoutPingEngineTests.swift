import XCTest
@testable import ReachCore
import ReachSystem

/// Sockets of both families on the manual clock: probes answered as a script says.
final class FakeFanoutTransport: PingTransport {
    let clock: ManualClock
    /// For each probe sent (its target and packet): what arrives, and after how long.
    var answer: (IPAddress, [UInt8]) -> [(delay: Int64, input: TransportInput)] = { _, _ in [] }
    var refuse: (IPAddress) -> Errno? = { _ in nil }
    private(set) var sent: [(target: IPAddress, sequence: UInt16, time: Int64)] = []
    private var scheduled: [(time: Int64, family: AddressFamily, input: TransportInput)] = []

    init(clock: ManualClock) { self.clock = clock }

    func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) throws -> Errno? {
        beforeSend()
        if let error = refuse(target) { return error }
        sent.append((target, UInt16(packet[6]) << 8 | UInt16(packet[7]), clock.monotonicNanoseconds))
        for (delay, input) in answer(target, packet) {
            scheduled.append((clock.monotonicNanoseconds + delay, target.family, input))
        }
        scheduled.sort { $0.time < $1.time }
        return nil
    }

    func identifier(for family: AddressFamily) -> UInt16 { family == .ipv4 ? 0x4242 : 0x4343 }
    func kind(for family: AddressFamily) -> ICMPSocketKind? { .datagram }
    func interrupt() { scheduled.insert((clock.monotonicNanoseconds, .ipv4, .interrupted), at: 0) }

    func wait(until instant: MonotonicInstant?, _ deliver: (AddressFamily, TransportInput) -> Void) throws {
        let deadline = instant?.nanoseconds
        guard let next = scheduled.first, deadline == nil || next.time <= deadline! else {
            guard let deadline else { throw SystemCallError("wait", .invalidArgument) }
            clock.monotonicNanoseconds = max(clock.monotonicNanoseconds, deadline)
            return
        }
        clock.monotonicNanoseconds = max(clock.monotonicNanoseconds, next.time)
        scheduled.removeFirst()
        guard case .datagram(var datagram) = next.input else { return deliver(next.family, next.input) }
        datagram.monotonicTime = clock.monotonicNow
        datagram.kernelTimestamp = real(next.time + clock.realtimeOffset)
        deliver(next.family, .datagram(datagram))
    }
}

final class FanoutPingEngineTests: XCTestCase {
    /// The echo reply to `packet`: ICMP type 0, or ICMPv6 type 129 (whose checksum the kernel checks).
    static func reply(to packet: [UInt8], from target: IPAddress) -> TransportInput {
        guard target.family == .ipv6, case .datagram(var datagram) = echoReply(to: packet, from: target) else {
            return echoReply(to: packet, from: target)
        }
        var bytes = Array(datagram.bytes)
        bytes[0] = 129
        datagram.bytes = bytes[...]
        return .datagram(datagram)
    }

    let ms: Int64 = 1_000_000
    let far = address("198.18.1.2")
    let silent = address("198.18.1.3")
    let far6 = address("2001:db8:1::2")
    let router = address("198.18.0.1")

    func run(_ targets: [IPAddress], _ configuration: FanoutPingConfiguration, transport: FakeFanoutTransport)
        throws -> ([FanoutPingEvent], FanoutPingEngine)
    {
        var loop = PingLoop(
            engine: FanoutPingEngine(targets: targets, identifiers: (0x4242, 0x4343), configuration: configuration),
            transport: transport, clock: transport.clock)
        var events: [FanoutPingEvent] = []
        try loop.run { event, _ in events.append(event) }
        return (events, loop.engine)
    }

    func counted(_ count: Int, interval: Int64, period: Int64, timeout: Int64) -> FanoutPingConfiguration {
        var configuration = FanoutPingConfiguration()
        configuration.count = count
        configuration.interval = .nanoseconds(interval)
        configuration.period = .nanoseconds(period)
        configuration.timeout = .nanoseconds(timeout)
        configuration.recordsEachProbe = true
        return configuration
    }

    /// Round-robin: one send per interval across all targets, each target once a period;
    /// one sequence space for the run; replies matched to their target by sequence.
    func testRoundRobinOneIntervalApartEachTargetOncePerPeriod() throws {
        let clock = ManualClock()
        let start = clock.monotonicNanoseconds
        let transport = FakeFanoutTransport(clock: clock)
        transport.answer = { [self] target, packet in target == self.silent ? [] : [(2 * ms, Self.reply(to: packet, from: target))] }
        let configuration = counted(2, interval: 10 * ms, period: 100 * ms, timeout: 50 * ms)
        let (events, engine) = try run([far, silent, far6], configuration, transport: transport)
        XCTAssertEqual(transport.sent.map(\.target), [far, silent, far6, far, silent, far6])
        XCTAssertEqual(transport.sent.map(\.sequence), [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(transport.sent.map { ($0.time - start) / ms }, [0, 10, 20, 100, 110, 120])
        XCTAssertEqual(engine.statistics.map(\.sent), [2, 2, 2])
        XCTAssertEqual(engine.statistics.map(\.received), [2, 0, 2])
        XCTAssertEqual(engine.statistics.map(\.lossPercent), [0, 100, 0])
        XCTAssertEqual(engine.statistics[0].roundTrips, [.milliseconds(2), .milliseconds(2)])
        XCTAssertEqual(engine.statistics[1].roundTrips, [FanoutPingStatistics.lost, FanoutPingStatistics.lost])
        let timeouts = events.filter { if case .timedOut = $0 { true } else { false } }
        XCTAssertEqual(timeouts, [.timedOut(target: 1, index: 0), .timedOut(target: 1, index: 1)])
        XCTAssertEqual(events.last, .finished)
        XCTAssertEqual((clock.monotonicNanoseconds - start) / ms, 160, "ends when the last wait is over")
    }

    /// fping's rules: an ICMP error is shown but only the timeout counts the loss; a reply
    /// slower than the timeout is not counted; a duplicate is counted apart; a refused send
    /// is sent and lost.
    func testErrorsLateRepliesDuplicatesAndRefusals() throws {
        let clock = ManualClock()
        let transport = FakeFanoutTransport(clock: clock)
        let late = address("198.18.1.5")
        let refused = address("203.0.113.1")
        transport.refuse = { $0 == refused ? .hostUnreachable : nil }
        transport.answer = { [self] target, packet in
            switch target {
            case self.silent:
                return [(ms, .queuedError(QueuedError(
                    origin: .icmp, errno: .hostUnreachable, type: 3, code: 1, info: 0, offender: self.router, originalPacket: packet,
                    destination: target)))]
            case late: return [(80 * ms, Self.reply(to: packet, from: target))]
            default: return [(ms, Self.reply(to: packet, from: target)), (3 * ms, Self.reply(to: packet, from: target))]
            }
        }
        let targets = [far, silent, late, refused]
        let (events, engine) = try run(targets, counted(1, interval: ms, period: 100 * ms, timeout: 50 * ms), transport: transport)
        XCTAssertTrue(events.contains(.icmpError(target: 1, index: 0, from: router, type: ICMPType(3), code: 1)))
        XCTAssertTrue(events.contains(.timedOut(target: 1, index: 0)), "the error's probe is lost when its time is up")
        XCTAssertTrue(events.contains(.timedOut(target: 2, index: 0)), "a reply after the timeout does not count")
        XCTAssertTrue(events.contains(.sendFailed(target: 3, index: 0, error: .hostUnreachable)))
        XCTAssertEqual(engine.statistics.map(\.sent), [1, 1, 1, 1])
        XCTAssertEqual(engine.statistics.map(\.received), [1, 0, 0, 0])
        XCTAssertEqual(engine.statistics[0].receivedTotal, 2, "the duplicate counted apart")
        XCTAssertEqual(events.filter { if case .duplicate = $0 { true } else { false } }.count, 1)
        XCTAssertEqual(engine.aliveCount, 1)
    }

    /// Error-queue entries as a datagram socket gets them: the kernel's own error (EMSGSIZE
    /// with the path MTU) is reported on its probe; an ICMP error about a packet to another
    /// address, though it quotes our identifier and a sequence we sent, is not about our probe.
    func testQueuedLocalErrorsAndErrorsForAnotherDestination() throws {
        let clock = ManualClock()
        let transport = FakeFanoutTransport(clock: clock)
        let elsewhere = address("203.0.113.9")
        transport.answer = { [self] target, packet in
            if target == self.silent {
                return [(ms, .queuedError(QueuedError(
                    origin: .local, errno: .messageTooLong, type: 0, code: 0, info: 1400, offender: nil, originalPacket: packet,
                    destination: target)))]
            }
            return [
                (ms, .queuedError(QueuedError(
                    origin: .icmp, errno: .hostUnreachable, type: 3, code: 1, info: 0, offender: self.router, originalPacket: packet,
                    destination: elsewhere))),
                (2 * ms, Self.reply(to: packet, from: target)),
            ]
        }
        let (events, engine) = try run([far, silent], counted(1, interval: ms, period: 100 * ms, timeout: 50 * ms), transport: transport)
        XCTAssertTrue(events.contains(.localError(target: 1, index: 0, error: .messageTooLong)))
        XCTAssertFalse(events.contains { if case .icmpError = $0 { true } else { false } }, "the forged error is dropped")
        XCTAssertEqual(engine.statistics.map(\.received), [1, 0])
        XCTAssertTrue(events.contains(.timedOut(target: 1, index: 0)), "the probe the kernel refused is lost when its time is up")
    }

    /// Without a count, fping's default mode: a target is tried until it answers, at most
    /// four times, each wait 1.5 times the last.
    func testDefaultModeRetriesWithBackoffUntilAnswered() throws {
        let clock = ManualClock()
        let start = clock.monotonicNanoseconds
        let transport = FakeFanoutTransport(clock: clock)
        transport.answer = { [self] target, packet in target == self.far ? [(ms, Self.reply(to: packet, from: target))] : [] }
        var configuration = FanoutPingConfiguration()
        configuration.timeout = .nanoseconds(100 * ms)
        let (_, engine) = try run([far, silent], configuration, transport: transport)
        XCTAssertEqual(transport.sent.filter { $0.target == far }.count, 1)
        let retries = transport.sent.filter { $0.target == silent }.map { ($0.time - start) / ms }
        XCTAssertEqual(retries, [10, 110, 260, 485], "waits of 100, 150, 225 ms between tries")
        XCTAssertEqual(engine.statistics.map(\.sent), [1, 4])
        XCTAssertEqual((clock.monotonicNanoseconds - start) / ms, 485 + 337, "the last wait is 337.5 ms")
    }

    /// A stop (Ctrl-C) ends the run at once; what was counted stays.
    func testStopEndsTheRun() throws {
        let clock = ManualClock()
        let transport = FakeFanoutTransport(clock: clock)
        transport.answer = { [self] target, packet in
            target == self.far ? [(ms, Self.reply(to: packet, from: target)), (5 * ms, .interrupted)] : []
        }
        let configuration = counted(10, interval: 10 * ms, period: 100 * ms, timeout: 50 * ms)
        let (events, engine) = try run([far, silent], configuration, transport: transport)
        XCTAssertEqual(events.last, .finished)
        XCTAssertEqual(engine.statistics[0].received, 1)
        XCTAssertEqual(transport.sent.count, 1, "stopped before the second target's turn")
    }
}

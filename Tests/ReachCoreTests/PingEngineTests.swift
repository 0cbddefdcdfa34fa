import XCTest
@testable import ReachCore
import ReachSystem

/// A clock the test moves by hand.
final class ManualClock: PingClock {
    var monotonicNanoseconds: Int64 = 1_000_000_000
    /// CLOCK_REALTIME runs `realtimeOffset` ahead of the monotonic clock (a step changes it).
    var realtimeOffset: Int64 = 1_700_000_000_000_000_000
    var realtimeNanoseconds: Int64 { monotonicNanoseconds + realtimeOffset }
    var monotonicNow: MonotonicInstant { mono(monotonicNanoseconds) }
    var realtimeNow: RealtimeInstant { real(realtimeNanoseconds) }
}

/// Instants from the manual clock's nanoseconds.
func mono(_ nanoseconds: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: nanoseconds) }
func real(_ nanoseconds: Int64) -> RealtimeInstant { RealtimeInstant(nanoseconds: nanoseconds) }

/// A transport that answers probes as a script says, on the manual clock.
final class FakeTransport: PingTransport {
    let kind: ICMPSocketKind
    let identifier: UInt16
    let clock: ManualClock
    /// Called for each probe sent (sequence, packet, send time); returns what arrives and when.
    var answer: (UInt16, [UInt8], Int64) -> [(delay: Int64, input: TransportInput)] = { _, _, _ in [] }
    var refuse: (UInt16) -> Errno? = { _ in nil }
    private(set) var sent: [(sequence: UInt16, time: Int64)] = []
    private var scheduled: [(time: Int64, input: TransportInput)] = []

    init(kind: ICMPSocketKind = .datagram, identifier: UInt16 = 0x4242, clock: ManualClock) {
        self.kind = kind
        self.identifier = identifier
        self.clock = clock
    }

    /// The family of the last target sent to: the one socket's.
    private var family = AddressFamily.ipv4

    func identifier(for family: AddressFamily) -> UInt16 { identifier }
    func kind(for family: AddressFamily) -> ICMPSocketKind? { kind }

    func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) throws -> Errno? {
        beforeSend()
        family = target.family
        let sequence = UInt16(packet[6]) << 8 | UInt16(packet[7])
        if let error = refuse(sequence) { return error }
        sent.append((sequence, clock.monotonicNanoseconds))
        for (delay, input) in answer(sequence, packet, clock.monotonicNanoseconds) {
            schedule(input, at: clock.monotonicNanoseconds + delay)
        }
        return nil
    }

    func interrupt() {
        schedule(.interrupted, at: clock.monotonicNanoseconds)
    }

    func schedule(_ input: TransportInput, at time: Int64) {
        scheduled.append((time, input))
        scheduled.sort { $0.time < $1.time }
    }

    func wait(until instant: MonotonicInstant?, _ deliver: (AddressFamily, TransportInput) -> Void) throws {
        let deadline = instant?.nanoseconds
        guard let next = scheduled.first, deadline == nil || next.time <= deadline! else {
            guard let deadline else { throw SystemCallError("wait", .invalidArgument) } // would block forever
            clock.monotonicNanoseconds = max(clock.monotonicNanoseconds, deadline)
            return
        }
        clock.monotonicNanoseconds = max(clock.monotonicNanoseconds, next.time)
        let due = scheduled.prefix { $0.time <= clock.monotonicNanoseconds }
        scheduled.removeFirst(due.count)
        let inputs = due.map { input -> TransportInput in
            // The kernel stamps a datagram when it arrives: fill in the times of delivery.
            guard case .datagram(var datagram) = input.input else { return input.input }
            datagram.monotonicTime = clock.monotonicNow
            if datagram.kernelTimestamp == real(0) { datagram.kernelTimestamp = real(input.time + clock.realtimeOffset) }
            return .datagram(datagram)
        }
        for input in inputs { deliver(family, input) }
    }
}

final class PingEngineTests: XCTestCase {
    let target = try! IPAddress.parse("198.18.0.2")
    let router = try! IPAddress.parse("198.18.0.1")
    let ms: Int64 = 1_000_000

    /// The echo reply a datagram socket would deliver for `packet`, from the target.
    func reply(to packet: [UInt8], from: IPAddress? = nil, identifier: UInt16? = nil, sequence: UInt16? = nil) -> TransportInput {
        echoReply(to: packet, from: from ?? target, identifier: identifier, sequence: sequence)
    }

    func run(
        _ configuration: PingConfiguration, transport: FakeTransport, clock: ManualClock, target: IPAddress? = nil
    ) throws -> ([PingEvent], PingEngine) {
        var loop = PingLoop(
            engine: PingEngine(target: target ?? self.target, identifier: transport.identifier, configuration: configuration),
            transport: transport, clock: clock)
        var events: [PingEvent] = []
        try loop.run { events.append($0) }
        return (events, loop.engine)
    }

    func replies(_ events: [PingEvent]) -> [PingReply] {
        events.compactMap { if case .reply(let reply) = $0 { reply } else { nil } }
    }

    func testThreeRepliesInOrderWithKernelTimes() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] sequence, packet, _ in [(Int64(sequence) * 100_000, reply(to: packet))] }
        let (events, engine) = try run(PingConfiguration(count: 3), transport: transport, clock: clock)
        XCTAssertEqual(events.count, 7)
        XCTAssertEqual(events[0], .sent(sequence: 1, bytes: 64))
        XCTAssertEqual(replies(events).map(\.sequence), [1, 2, 3], "sequence numbers start at 1")
        XCTAssertEqual(replies(events).map(\.roundTrip.nanoseconds), [100_000, 200_000, 300_000])
        XCTAssertEqual(transport.sent.map(\.time), [1_000 * ms, 2_000 * ms, 3_000 * ms], "one interval apart")
        XCTAssertEqual(engine.statistics.received, 3)
        XCTAssertEqual(engine.elapsedMilliseconds, 2000)
        XCTAssertTrue(engine.succeeded)
        guard case .finished(let statistics) = events.last else { return XCTFail("no finish") }
        XCTAssertEqual(statistics.averageMicroseconds, 200)
    }

    func testPerProbeTimeoutThenLateReply() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        // Probe 1 is answered after 1.5 s, past its 1 s timeout; probe 2 at once.
        transport.answer = { [self] sequence, packet, _ in [(sequence == 1 ? 1500 * ms : ms, reply(to: packet))] }
        let configuration = PingConfiguration(count: 3, timeout: .nanoseconds(1000 * ms))
        let (events, engine) = try run(configuration, transport: transport, clock: clock)
        XCTAssertEqual(events.filter { $0 == .timedOut(sequence: 1) }.count, 1)
        let timeoutIndex = events.firstIndex(of: .timedOut(sequence: 1))!
        let late = replies(events).first { $0.sequence == 1 }!
        XCTAssertTrue(late.late, "a reply after its timeout is reported as late, not dropped")
        XCTAssertGreaterThan(events.firstIndex(of: .reply(late))!, timeoutIndex)
        XCTAssertEqual(engine.statistics.received, 3, "iputils counts a late reply as received")
    }

    func testNoReplyTimesOutEveryProbeAndFails() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        let configuration = PingConfiguration(count: 3, interval: .nanoseconds(200 * ms), timeout: .nanoseconds(1000 * ms))
        let (events, engine) = try run(configuration, transport: transport, clock: clock)
        XCTAssertEqual(
            events.filter { if case .timedOut = $0 { true } else { false } },
            [.timedOut(sequence: 1), .timedOut(sequence: 2), .timedOut(sequence: 3)])
        XCTAssertEqual(clock.monotonicNanoseconds, 1_000 * ms + 400 * ms + 1000 * ms, "ends when the last probe times out")
        XCTAssertFalse(engine.succeeded)
        XCTAssertEqual(engine.statistics.lossPercent, 100)
    }

    func testDuplicateReplies() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] _, packet, _ in [(ms, reply(to: packet)), (2 * ms, reply(to: packet))] }
        let (events, engine) = try run(PingConfiguration(count: 2, interval: .nanoseconds(100 * ms)), transport: transport, clock: clock)
        // The run ends at the second reply (count reached, as iputils): its duplicate is not waited for.
        XCTAssertEqual(replies(events).map(\.duplicate), [false, true, false])
        XCTAssertEqual(engine.statistics.received, 2)
        XCTAssertEqual(engine.statistics.duplicates, 1)
        XCTAssertEqual(engine.statistics.timed, 3, "iputils times duplicates too")
    }

    func testRepliesWithOtherDataAreMarked() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        // Probe 1 comes back intact, probe 2 with a data byte changed, probe 3 with a byte short.
        transport.answer = { [self] sequence, packet, _ in
            var bytes = packet
            if sequence == 2 { bytes[20] ^= 0xff }
            if sequence == 3 { bytes.removeLast() }
            return [(ms, reply(to: bytes))]
        }
        let (events, _) = try run(PingConfiguration(count: 3, interval: .nanoseconds(100 * ms)), transport: transport, clock: clock)
        XCTAssertEqual(replies(events).map(\.wrongData), [false, true, true])
        XCTAssertEqual(replies(events).map(\.corrupted), [false, false, false], "their checksums were made for that data")
    }

    func testABadChecksumIsCorruptedWhateverTheData() throws {
        let clock = ManualClock()
        let transport = FakeTransport(kind: .raw, clock: clock)
        // Probe 1: intact data, a header byte changed after the checksum; probe 2: a data byte.
        transport.answer = { [self] sequence, packet, _ in
            guard case .datagram(var datagram) = reply(to: packet) else { return [] }
            var bytes = Array(datagram.bytes)
            bytes[sequence == 1 ? 1 : 30] ^= 0x40
            datagram.bytes = bytes[...]
            return [(ms, .datagram(datagram))]
        }
        let (events, engine) = try run(PingConfiguration(count: 2, interval: .nanoseconds(100 * ms)), transport: transport, clock: clock)
        XCTAssertEqual(replies(events).map(\.corrupted), [true, true])
        XCTAssertEqual(replies(events).map(\.wrongData), [false, true])
        XCTAssertEqual(engine.statistics.corrupted, 2)
        XCTAssertEqual(engine.statistics.received, 0)
    }

    func testAProbePacketKeptStaysAsSent() {
        // The engine patches one array per probe; a caller that keeps a packet keeps its own.
        var engine = PingEngine(target: target, identifier: 9, configuration: PingConfiguration(interval: .nanoseconds(0)))
        let first = engine.nextProbe(now: mono(0))!
        _ = engine.didSend(first, realtime: real(0), monotonic: mono(0))
        let second = engine.nextProbe(now: mono(20 * ms))!
        XCTAssertEqual(first.bytes[6...7], [0, 1])
        XCTAssertEqual(second.bytes[6...7], [0, 2])
        XCTAssertEqual(ICMPCodec.checksum(first.bytes[...]), 0)
        XCTAssertEqual(ICMPCodec.checksum(second.bytes[...]), 0)
    }

    func testForeignAndUnsentRepliesAreUnexpected() throws {
        let clock = ManualClock()
        let transport = FakeTransport(kind: .raw, clock: clock)
        transport.answer = { [self] _, packet, _ in
            [
                (ms, reply(to: packet, identifier: 0x9999)), // another process's pinger
                (2 * ms, reply(to: packet, sequence: 77)), // a sequence never sent
                (3 * ms, reply(to: packet)),
            ]
        }
        let (events, engine) = try run(PingConfiguration(count: 1), transport: transport, clock: clock)
        let unexpected = events.filter { if case .unexpected = $0 { true } else { false } }
        XCTAssertEqual(unexpected.count, 2)
        XCTAssertEqual(engine.statistics.received, 1)
        XCTAssertEqual(engine.statistics.duplicates, 0)
    }

    /// A datagram socket gets every error that quotes its identifier: one about a packet to
    /// another address (a forgery, found by the hostile-network test) was counted as an error,
    /// and its probe as answered, so the run ended before the last real reply.
    func testQueuedErrorForAnotherDestinationIsUnexpected() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        let elsewhere = try IPAddress.parse("203.0.113.9")
        transport.answer = { [self] _, packet, _ in
            [
                (
                    ms,
                    .queuedError(
                        QueuedError(
                            origin: .icmp, errno: .hostUnreachable, type: 3, code: 1, info: 0,
                            offender: router, originalPacket: packet, destination: elsewhere))
                ),
                (2 * ms, reply(to: packet)),
            ]
        }
        let (events, engine) = try run(PingConfiguration(count: 2, interval: .nanoseconds(100 * ms)), transport: transport, clock: clock)
        XCTAssertEqual(events.filter { if case .unexpected = $0 { true } else { false } }.count, 2)
        XCTAssertEqual(engine.statistics.errors, 0)
        XCTAssertEqual(engine.statistics.received, 2)
        XCTAssertEqual(engine.statistics.transmitted, 2)
    }

    func testQueuedICMPErrorsCountAsErrors() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] _, packet, _ in
            [
                (
                    ms,
                    .queuedError(
                        QueuedError(
                            origin: .icmp, errno: .hostUnreachable, type: 3, code: 1, info: 0,
                            offender: router, originalPacket: packet, destination: target))
                )
            ]
        }
        let (events, engine) = try run(PingConfiguration(count: 2, interval: .nanoseconds(100 * ms)), transport: transport, clock: clock)
        let errors = events.compactMap { if case .icmpError(let error) = $0 { error } else { nil } }
        XCTAssertEqual(errors.map(\.sequence), [1, 2])
        XCTAssertEqual(errors.first?.from, router)
        XCTAssertEqual(errors.first?.text, "Destination Host Unreachable")
        XCTAssertEqual(engine.statistics.errors, 2)
        XCTAssertFalse(events.contains { if case .timedOut = $0 { true } else { false } }, "an errored probe does not also time out")
        XCTAssertFalse(engine.succeeded)
    }

    /// iputils' "pipe": errors that come 3 s after their probe (a neighbour that never
    /// answers ARP), at one probe a second, find 4 probes out; prompt replies find 1.
    func testPipeIsTheMostProbesOutWhenAnAnswerCame() throws {
        let clock = ManualClock()
        let transport = lateErrors(clock: clock, type: 3, code: 1, from: router, about: target)
        let (_, slow) = try run(PingConfiguration(count: 5), transport: transport, clock: clock)
        XCTAssertEqual(slow.statistics.errors, 5)
        XCTAssertEqual(slow.statistics.pipe, 4)

        let promptClock = ManualClock()
        let prompt = FakeTransport(clock: promptClock)
        prompt.answer = { [self] _, packet, _ in [(ms, reply(to: packet))] }
        let (_, engine) = try run(PingConfiguration(count: 3), transport: prompt, clock: promptClock)
        XCTAssertEqual(engine.statistics.pipe, 1)
    }

    /// iputils counts an ICMPv6 error in no pipe (ping6_receive_error_msg does not acknowledge
    /// it): a neighbour that never answers gives `+5 errors` and no "pipe" line for IPv6.
    func testICMPv6ErrorsCountInNoPipe() throws {
        let target6 = try IPAddress.parse("2001:db8:1::99")
        let local6 = try IPAddress.parse("2001:db8:1::1")
        let clock = ManualClock()
        let transport = lateErrors(clock: clock, type: 1, code: 3, from: local6, about: target6)
        let (_, engine) = try run(PingConfiguration(count: 5), transport: transport, clock: clock, target: target6)
        XCTAssertEqual(engine.statistics.errors, 5)
        XCTAssertEqual(engine.statistics.pipe, 0)
    }

    /// A transport whose every probe is answered 3 s later by an ICMP error in the error
    /// queue (a neighbour that never answers), sent by `from`.
    func lateErrors(clock: ManualClock, type: UInt8, code: UInt8, from: IPAddress, about destination: IPAddress) -> FakeTransport {
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] _, packet, _ in
            [
                (
                    3000 * ms + ms,
                    .queuedError(
                        QueuedError(
                            origin: .icmp, errno: .hostUnreachable, type: type, code: code, info: 0,
                            offender: from, originalPacket: packet, destination: destination))
                )
            ]
        }
        return transport
    }

    func testRawSocketErrorQuotingOurProbe() throws {
        let clock = ManualClock()
        let transport = FakeTransport(kind: .raw, clock: clock)
        transport.answer = { [self] _, packet, _ in
            // Time exceeded from the router, IPv4 header included, quoting our probe.
            let quoted: [UInt8] = [0x45, 0, 0, 84, 0, 0, 0, 0, 1, 1, 0, 0, 198, 18, 0, 9] + target.bytes
            var datagram: [UInt8] = [0x45, 0, 0, 56, 0, 0, 0, 0, 64, 1, 0, 0] + router.bytes + [198, 18, 0, 9]
            datagram += [11, 0, 0, 0, 0, 0, 0, 0] + quoted + packet.prefix(8)
            return [
                (
                    ms,
                    .datagram(
                        ReceivedDatagram(
                            bytes: datagram, from: router, ttl: nil, kernelTimestamp: real(0),
                            monotonicTime: mono(0), includesIPHeader: true))
                )
            ]
        }
        let (events, engine) = try run(PingConfiguration(count: 1), transport: transport, clock: clock)
        let errors = events.compactMap { if case .icmpError(let error) = $0 { error } else { nil } }
        XCTAssertEqual(errors.map(\.text), ["Time to live exceeded"])
        XCTAssertEqual(engine.statistics.errors, 1)
    }

    func testSendFailureIsCountedAsErrorNotFailure() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.refuse = { $0 == 1 ? .networkUnreachable : nil }
        transport.answer = { [self] _, packet, _ in [(ms, reply(to: packet))] }
        let (events, engine) = try run(PingConfiguration(count: 2, interval: .nanoseconds(100 * ms)), transport: transport, clock: clock)
        XCTAssertEqual(events.first, .sendFailed(sequence: 1, error: .networkUnreachable))
        XCTAssertEqual(engine.statistics.transmitted, 2)
        XCTAssertEqual(engine.statistics.errors, 1)
        XCTAssertEqual(engine.statistics.received, 1)
    }

    func testClockStepFallsBackToMonotonicTime() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] _, packet, _ in
            // The wall clock jumps back an hour between send and receive.
            clock.realtimeOffset -= 3_600_000 * ms
            return [(2 * ms, reply(to: packet))]
        }
        let (events, _) = try run(PingConfiguration(count: 1), transport: transport, clock: clock)
        XCTAssertEqual(replies(events).first?.roundTrip.nanoseconds, 2 * ms)
    }

    func testSequenceWrapAcceptsOnlyTheLast120() {
        var engine = PingEngine(target: target, identifier: 1, configuration: PingConfiguration(interval: .nanoseconds(0)))
        var now: Int64 = 0
        for _ in 0..<65_540 {
            let probe = engine.nextProbe(now: mono(now)) ?? engine.nextProbe(now: mono(now + 20 * ms))!
            now += 20 * ms
            _ = engine.didSend(probe, realtime: real(now), monotonic: mono(now))
        }
        XCTAssertEqual(engine.nextSequenceNumber, 5)
        XCTAssertTrue(engine.nextSequenceNumberHasWrapped)
        // Probe 65,536 had sequence 0, probe 65,540 sequence 4.
        XCTAssertEqual(PingEngine.sequence(ofProbe: 65_536), 0)
        XCTAssertEqual(engine.probeNumber(forSequence: 4), 65_540)
        XCTAssertEqual(engine.probeNumber(forSequence: 0), 65_536)
        XCTAssertEqual(engine.probeNumber(forSequence: UInt16(65_536 - 115)), 65_421, "the last 120 are accepted")
        XCTAssertNil(engine.probeNumber(forSequence: 5), "not sent since the wrap")
        XCTAssertNil(engine.probeNumber(forSequence: 1000), "65,536 probes ago: too old")
    }

    func testBeforeTheWrapAnySentSequenceIsAccepted() {
        var engine = PingEngine(target: target, identifier: 1, configuration: PingConfiguration())
        for index in 0..<300 {
            let probe = engine.nextProbe(now: mono(Int64(index) * 1_000 * ms))!
            _ = engine.didSend(probe, realtime: real(0), monotonic: mono(Int64(index) * 1_000 * ms))
        }
        XCTAssertEqual(engine.nextSequenceNumber, 301)
        XCTAssertFalse(engine.nextSequenceNumberHasWrapped)
        XCTAssertEqual(engine.probeNumber(forSequence: 1), 1)
        XCTAssertEqual(engine.probeNumber(forSequence: 300), 300)
        XCTAssertNil(engine.probeNumber(forSequence: 0))
        XCTAssertNil(engine.probeNumber(forSequence: 301))
    }

    func testDeadlineWithCountKeepsProbingUntilCountReplies() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        // Odd probes are lost; with -c 2 -w 10 iputils sends until 2 replies came.
        transport.answer = { [self] sequence, packet, _ in sequence % 2 == 1 ? [] : [(ms, reply(to: packet))] }
        let configuration = PingConfiguration(count: 2, interval: .nanoseconds(100 * ms), deadline: .nanoseconds(10_000 * ms))
        let (_, engine) = try run(configuration, transport: transport, clock: clock)
        XCTAssertEqual(engine.statistics.received, 2)
        XCTAssertEqual(engine.statistics.transmitted, 4)
        XCTAssertTrue(engine.succeeded)
    }

    func testDeadlineEndsTheRun() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        let configuration = PingConfiguration(count: 5, interval: .nanoseconds(1000 * ms), deadline: .nanoseconds(2500 * ms))
        let start = clock.monotonicNanoseconds
        let (events, engine) = try run(configuration, transport: transport, clock: clock)
        XCTAssertEqual(clock.monotonicNanoseconds - start, 2500 * ms)
        XCTAssertEqual(engine.statistics.transmitted, 3)
        XCTAssertEqual(
            events.filter { if case .timedOut = $0 { true } else { false } }.count, 3,
            "probes outstanding at the deadline are reported timed out")
        XCTAssertFalse(engine.succeeded)
    }

    func testEndsTwiceTheLongestRoundTripAfterTheLastProbe() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] sequence, packet, _ in sequence == 3 ? [] : [(5 * ms, reply(to: packet))] }
        let configuration = PingConfiguration(count: 3, interval: .nanoseconds(200 * ms))
        let (_, engine) = try run(configuration, transport: transport, clock: clock)
        // iputils schedule_exit: max(2 × tmax, interval) after the last probe.
        XCTAssertEqual(clock.monotonicNow, engine.lastSendTime! + .milliseconds(200))
        XCTAssertEqual(engine.statistics.received, 2)
    }

    func testRepliesSlowerThanTheTimeoutAreWaitedForAsIputilsDoes() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        // Every reply takes 1.5 s, -W 1: each probe times out, then its reply comes late.
        transport.answer = { [self] _, packet, _ in [(1500 * ms, reply(to: packet))] }
        let configuration = PingConfiguration(count: 3, timeout: .nanoseconds(1000 * ms))
        let (events, engine) = try run(configuration, transport: transport, clock: clock)
        XCTAssertEqual(events.filter { if case .timedOut = $0 { true } else { false } }.count, 3)
        XCTAssertEqual(replies(events).map(\.sequence), [1, 2, 3])
        XCTAssertTrue(replies(events).allSatisfy(\.late))
        // iputils schedule_exit: once a reply came, max(2 × tmax, interval) after the last probe,
        // whatever -W says; the run ends at the third reply (count reached).
        XCTAssertEqual(engine.statistics.received, 3)
        XCTAssertEqual(clock.monotonicNow, engine.lastSendTime! + .milliseconds(1500))
    }

    func testTimeoutShorterThanTheIntervalDoesNotEndTheRunEarly() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] sequence, packet, _ in sequence == 3 ? [] : [(5 * ms, reply(to: packet))] }
        let configuration = PingConfiguration(count: 3, interval: .nanoseconds(1000 * ms), timeout: .nanoseconds(300 * ms))
        let (events, engine) = try run(configuration, transport: transport, clock: clock)
        XCTAssertEqual(events.filter { $0 == .timedOut(sequence: 3) }.count, 1, "reported at -W")
        XCTAssertEqual(clock.monotonicNow, engine.lastSendTime! + .milliseconds(1000), "the run ends one interval after")
    }

    func testFloodPacingSendsWhenAnswered() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] _, packet, _ in [(Int64(50_000), reply(to: packet))] }
        let (_, engine) = try run(PingConfiguration(count: 100, interval: .nanoseconds(0)), transport: transport, clock: clock)
        XCTAssertEqual(engine.statistics.received, 100)
        XCTAssertEqual(transport.sent.last!.time - transport.sent.first!.time, 99 * 50_000, "each probe right after the reply")
    }

    func testFloodPacingWithoutRepliesIs100PerSecond() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        let configuration = PingConfiguration(count: 5, interval: .nanoseconds(0), timeout: .nanoseconds(1000 * ms))
        _ = try run(configuration, transport: transport, clock: clock)
        XCTAssertEqual(transport.sent.map { $0.time - transport.sent[0].time }, [Int64(0), 10, 20, 30, 40].map { $0 * ms })
    }

    func testStatusRequestReportsTheStatisticsSoFarAndTheRunGoesOn() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] sequence, packet, _ in
            sequence == 2 ? [(ms, reply(to: packet)), (2 * ms, .statusRequested)] : [(ms, reply(to: packet))]
        }
        let (events, engine) = try run(PingConfiguration(count: 3, interval: .nanoseconds(100 * ms)), transport: transport, clock: clock)
        let snapshots = events.compactMap { if case .statusRequested(let stats) = $0 { stats } else { nil } }
        XCTAssertEqual(snapshots.map(\.received), [2])
        XCTAssertEqual(snapshots.map(\.transmitted), [2])
        XCTAssertEqual(engine.statistics.received, 3, "the run went on to its count")
    }

    func testStopReportsOutstandingAndFinishes() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] sequence, packet, _ in
            sequence == 2 ? [(10 * ms, .interrupted)] : [(ms, reply(to: packet))]
        }
        let (events, engine) = try run(PingConfiguration(), transport: transport, clock: clock)
        XCTAssertEqual(Array(events.suffix(2)), [.timedOut(sequence: 2), .finished(engine.statistics)])
        XCTAssertEqual(engine.statistics.transmitted, 2)
        XCTAssertTrue(engine.succeeded)
    }
}

import XCTest
@testable import ReachCore
import ReachSystem

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

    /// Probe `sequence` of the one target (iputils numbers from 1, fping's index from 0).
    func probe(_ sequence: UInt16) -> PingProbe { PingProbe(target: 0, index: Int(sequence) - 1, sequence: sequence) }

    func replies(_ events: [PingEvent]) -> [PingReply] {
        events.compactMap { if case .reply(let reply) = $0 { reply } else { nil } }
    }

    func testThreeRepliesInOrderWithKernelTimes() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] sequence, packet, _ in [(Int64(sequence) * 100_000, reply(to: packet))] }
        let (events, engine) = try run(PingConfiguration(count: 3), transport: transport, clock: clock)
        XCTAssertEqual(events.count, 7)
        XCTAssertEqual(events[0], .sent(probe(1), bytes: 64))
        XCTAssertEqual(replies(events).map(\.sequence), [1, 2, 3], "sequence numbers start at 1")
        XCTAssertEqual(replies(events).map(\.roundTrip.nanoseconds), [100_000, 200_000, 300_000])
        XCTAssertEqual(transport.sent.map(\.time), [1_000 * ms, 2_000 * ms, 3_000 * ms], "one interval apart")
        XCTAssertEqual(engine.statistics[0].received, 3)
        XCTAssertEqual(engine.elapsedMilliseconds, 2000)
        XCTAssertTrue(engine.succeeded)
        guard case .finished(let statistics) = events.last else { return XCTFail("no finish") }
        XCTAssertEqual(statistics[0].averageMicroseconds, 200)
    }

    func testPerProbeTimeoutThenLateReply() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        // Probe 1 is answered after 1.5 s, past its 1 s timeout; probe 2 at once.
        transport.answer = { [self] sequence, packet, _ in [(sequence == 1 ? 1500 * ms : ms, reply(to: packet))] }
        let configuration = PingConfiguration(count: 3, timeout: .nanoseconds(1000 * ms))
        let (events, engine) = try run(configuration, transport: transport, clock: clock)
        XCTAssertEqual(events.filter { $0 == .timedOut(probe(1)) }.count, 1)
        let timeoutIndex = events.firstIndex(of: .timedOut(probe(1)))!
        let late = replies(events).first { $0.sequence == 1 }!
        XCTAssertTrue(late.late, "a reply after its timeout is reported as late, not dropped")
        XCTAssertGreaterThan(events.firstIndex(of: .reply(late))!, timeoutIndex)
        XCTAssertEqual(engine.statistics[0].received, 3, "iputils counts a late reply as received")
    }

    func testNoReplyTimesOutEveryProbeAndFails() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        let configuration = PingConfiguration(count: 3, interval: .nanoseconds(200 * ms), timeout: .nanoseconds(1000 * ms))
        let (events, engine) = try run(configuration, transport: transport, clock: clock)
        XCTAssertEqual(
            events.filter { if case .timedOut = $0 { true } else { false } },
            [.timedOut(probe(1)), .timedOut(probe(2)), .timedOut(probe(3))])
        XCTAssertEqual(clock.monotonicNanoseconds, 1_000 * ms + 400 * ms + 1000 * ms, "ends when the last probe times out")
        XCTAssertFalse(engine.succeeded)
        XCTAssertEqual(engine.statistics[0].lossPercent, 100)
    }

    func testDuplicateReplies() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] _, packet, _ in [(ms, reply(to: packet)), (2 * ms, reply(to: packet))] }
        let (events, engine) = try run(PingConfiguration(count: 2, interval: .nanoseconds(100 * ms)), transport: transport, clock: clock)
        // The run ends at the second reply (count reached, as iputils): its duplicate is not waited for.
        XCTAssertEqual(replies(events).map(\.duplicate), [false, true, false])
        XCTAssertEqual(engine.statistics[0].received, 2)
        XCTAssertEqual(engine.statistics[0].duplicates, 1)
        XCTAssertEqual(engine.statistics[0].timed, 3, "iputils times duplicates too")
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
        XCTAssertEqual(engine.statistics[0].corrupted, 2)
        XCTAssertEqual(engine.statistics[0].received, 0)
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
        XCTAssertEqual(engine.statistics[0].received, 1)
        XCTAssertEqual(engine.statistics[0].duplicates, 0)
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
        XCTAssertEqual(engine.statistics[0].errors, 0)
        XCTAssertEqual(engine.statistics[0].received, 2)
        XCTAssertEqual(engine.statistics[0].transmitted, 2)
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
        XCTAssertEqual(engine.statistics[0].errors, 2)
        XCTAssertFalse(events.contains { if case .timedOut = $0 { true } else { false } }, "an errored probe does not also time out")
        XCTAssertFalse(engine.succeeded)
    }

    /// iputils' "pipe": errors that come 3 s after their probe (a neighbour that never
    /// answers ARP), at one probe a second, find 4 probes out; prompt replies find 1.
    func testPipeIsTheMostProbesOutWhenAnAnswerCame() throws {
        let clock = ManualClock()
        let transport = lateErrors(clock: clock, type: 3, code: 1, from: router, about: target)
        let (_, slow) = try run(PingConfiguration(count: 5), transport: transport, clock: clock)
        XCTAssertEqual(slow.statistics[0].errors, 5)
        XCTAssertEqual(slow.statistics[0].pipe, 4)

        let promptClock = ManualClock()
        let prompt = FakeTransport(clock: promptClock)
        prompt.answer = { [self] _, packet, _ in [(ms, reply(to: packet))] }
        let (_, engine) = try run(PingConfiguration(count: 3), transport: prompt, clock: promptClock)
        XCTAssertEqual(engine.statistics[0].pipe, 1)
    }

    /// iputils counts an ICMPv6 error in no pipe (ping6_receive_error_msg does not acknowledge
    /// it): a neighbour that never answers gives `+5 errors` and no "pipe" line for IPv6.
    func testICMPv6ErrorsCountInNoPipe() throws {
        let target6 = try IPAddress.parse("2001:db8:1::99")
        let local6 = try IPAddress.parse("2001:db8:1::1")
        let clock = ManualClock()
        let transport = lateErrors(clock: clock, type: 1, code: 3, from: local6, about: target6)
        let (_, engine) = try run(PingConfiguration(count: 5), transport: transport, clock: clock, target: target6)
        XCTAssertEqual(engine.statistics[0].errors, 5)
        XCTAssertEqual(engine.statistics[0].pipe, 0)
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
        XCTAssertEqual(engine.statistics[0].errors, 1)
    }

    func testSendFailureIsCountedAsErrorNotFailure() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.refuse = { $0 == 1 ? .networkUnreachable : nil }
        transport.answer = { [self] _, packet, _ in [(ms, reply(to: packet))] }
        let (events, engine) = try run(PingConfiguration(count: 2, interval: .nanoseconds(100 * ms)), transport: transport, clock: clock)
        XCTAssertEqual(events.first, .sendFailed(probe(1), error: .networkUnreachable))
        XCTAssertEqual(engine.statistics[0].transmitted, 2)
        XCTAssertEqual(engine.statistics[0].errors, 1)
        XCTAssertEqual(engine.statistics[0].received, 1)
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
        XCTAssertEqual(engine.statistics[0].received, 2)
        XCTAssertEqual(engine.statistics[0].transmitted, 4)
        XCTAssertTrue(engine.succeeded)
    }

    func testDeadlineEndsTheRun() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        let configuration = PingConfiguration(count: 5, interval: .nanoseconds(1000 * ms), deadline: .nanoseconds(2500 * ms))
        let start = clock.monotonicNanoseconds
        let (events, engine) = try run(configuration, transport: transport, clock: clock)
        XCTAssertEqual(clock.monotonicNanoseconds - start, 2500 * ms)
        XCTAssertEqual(engine.statistics[0].transmitted, 3)
        XCTAssertEqual(
            events.filter { if case .timedOut = $0 { true } else { false } }.count, 3,
            "probes outstanding at the deadline are reported timed out")
        XCTAssertFalse(engine.succeeded)
    }

    /// -c's largest documented value, Int.max: the slot table's size is capped before the
    /// one iputils' numbering adds, so the engine starts, and the deadline ends the run.
    func testLargestCountRunsUntilTheDeadline() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] _, packet, _ in [(ms, reply(to: packet))] }
        let configuration = PingConfiguration(count: .max, interval: .nanoseconds(1000 * ms), deadline: .nanoseconds(2500 * ms))
        let (_, engine) = try run(configuration, transport: transport, clock: clock)
        XCTAssertEqual(engine.statistics[0].transmitted, 3)
        XCTAssertEqual(engine.statistics[0].received, 3)
        XCTAssertFalse(engine.hasSentAll)
    }

    func testEndsTwiceTheLongestRoundTripAfterTheLastProbe() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] sequence, packet, _ in sequence == 3 ? [] : [(5 * ms, reply(to: packet))] }
        let configuration = PingConfiguration(count: 3, interval: .nanoseconds(200 * ms))
        let (_, engine) = try run(configuration, transport: transport, clock: clock)
        // iputils schedule_exit: max(2 × tmax, interval) after the last probe.
        XCTAssertEqual(clock.monotonicNow, engine.lastSendTime! + .milliseconds(200))
        XCTAssertEqual(engine.statistics[0].received, 2)
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
        XCTAssertEqual(engine.statistics[0].received, 3)
        XCTAssertEqual(clock.monotonicNow, engine.lastSendTime! + .milliseconds(1500))
    }

    func testTimeoutShorterThanTheIntervalDoesNotEndTheRunEarly() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] sequence, packet, _ in sequence == 3 ? [] : [(5 * ms, reply(to: packet))] }
        let configuration = PingConfiguration(count: 3, interval: .nanoseconds(1000 * ms), timeout: .nanoseconds(300 * ms))
        let (events, engine) = try run(configuration, transport: transport, clock: clock)
        XCTAssertEqual(events.filter { $0 == .timedOut(probe(3)) }.count, 1, "reported at -W")
        XCTAssertEqual(clock.monotonicNow, engine.lastSendTime! + .milliseconds(1000), "the run ends one interval after")
    }

    func testFloodPacingSendsWhenAnswered() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] _, packet, _ in [(Int64(50_000), reply(to: packet))] }
        let (_, engine) = try run(PingConfiguration(count: 100, interval: .nanoseconds(0)), transport: transport, clock: clock)
        XCTAssertEqual(engine.statistics[0].received, 100)
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
        XCTAssertEqual(snapshots.map { $0[0].received }, [2])
        XCTAssertEqual(snapshots.map { $0[0].transmitted }, [2])
        XCTAssertEqual(engine.statistics[0].received, 3, "the run went on to its count")
    }

    func testStopReportsOutstandingAndFinishes() throws {
        let clock = ManualClock()
        let transport = FakeTransport(clock: clock)
        transport.answer = { [self] sequence, packet, _ in
            sequence == 2 ? [(10 * ms, .interrupted)] : [(ms, reply(to: packet))]
        }
        let (events, engine) = try run(PingConfiguration(), transport: transport, clock: clock)
        XCTAssertEqual(Array(events.suffix(2)), [.timedOut(probe(2)), .finished(engine.statistics)])
        XCTAssertEqual(engine.statistics[0].transmitted, 2)
        XCTAssertTrue(engine.succeeded)
    }
}

/// The same engine under fping's rules, over several targets of both families.
final class PingEngineFpingRulesTests: XCTestCase {
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

    func run(_ targets: [IPAddress], _ configuration: PingConfiguration, transport: FakeSocketGroup)
        throws -> ([PingEvent], PingEngine)
    {
        var loop = PingLoop(
            engine: PingEngine(targets: targets, identifiers: (0x4242, 0x4343), configuration: configuration),
            transport: transport, clock: transport.clock)
        var events: [PingEvent] = []
        try loop.run(reportEvery: nil) { event, _ in events.append(event) }
        return (events, loop.engine)
    }

    /// What each event says of its probe: "timeout 1/0" for target 1's first probe.
    func said(_ events: [PingEvent]) -> [String] {
        events.compactMap { event in
            switch event {
            case .timedOut(let probe): "timeout \(probe.target)/\(probe.index)"
            case .sendFailed(let probe, let error): "send failed \(probe.target)/\(probe.index) \(error)"
            case .localError(let probe, let error, _): "local error \(probe.target)/\(probe.index) \(error)"
            case .icmpError(let error):
                "icmp error \(error.probe.target)/\(error.probe.index) from \(error.from) \(error.type.rawValue)/\(error.code)"
            case .reply(let reply): (reply.duplicate ? "duplicate " : "reply ") + "\(reply.probe.target)/\(reply.probe.index)"
            case .finished: "finished"
            default: nil
            }
        }
    }

    func counted(_ count: Int, interval: Int64, period: Int64, timeout: Int64) -> PingConfiguration {
        var configuration = PingConfiguration.fping()
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
        let transport = FakeSocketGroup(clock: clock)
        transport.answer = { [self] target, packet in target == self.silent ? [] : [(2 * ms, Self.reply(to: packet, from: target))] }
        let configuration = counted(2, interval: 10 * ms, period: 100 * ms, timeout: 50 * ms)
        let (events, engine) = try run([far, silent, far6], configuration, transport: transport)
        XCTAssertEqual(transport.sent.map(\.target), [far, silent, far6, far, silent, far6])
        XCTAssertEqual(transport.sent.map(\.sequence), [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(transport.sent.map { ($0.time - start) / ms }, [0, 10, 20, 100, 110, 120])
        XCTAssertEqual(engine.statistics.map(\.sent), [2, 2, 2])
        XCTAssertEqual(engine.statistics.map(\.received), [2, 0, 2])
        XCTAssertEqual(engine.statistics.map(\.settledLossPercent), [0, 100, 0])
        XCTAssertEqual(engine.statistics[0].roundTrips, [.milliseconds(2), .milliseconds(2)])
        XCTAssertEqual(engine.statistics[1].roundTrips, [PingStatistics.lost, PingStatistics.lost])
        let timeouts = events.filter { if case .timedOut = $0 { true } else { false } }
        let silentProbes = [PingProbe(target: 1, index: 0, sequence: 1), PingProbe(target: 1, index: 1, sequence: 4)]
        XCTAssertEqual(timeouts, silentProbes.map { .timedOut($0) })
        XCTAssertEqual(said(events).last, "finished")
        XCTAssertEqual((clock.monotonicNanoseconds - start) / ms, 160, "ends when the last wait is over")
    }

    /// fping's rules: an ICMP error is shown but only the timeout counts the loss; a reply
    /// slower than the timeout is not counted; a duplicate is counted apart; a refused send
    /// is sent and lost.
    func testErrorsLateRepliesDuplicatesAndRefusals() throws {
        let clock = ManualClock()
        let transport = FakeSocketGroup(clock: clock)
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
        let said = said(events)
        XCTAssertTrue(said.contains("icmp error 1/0 from \(router) 3/1"), "\(said)")
        XCTAssertTrue(said.contains("timeout 1/0"), "the error's probe is lost when its time is up")
        XCTAssertTrue(said.contains("timeout 2/0"), "a reply after the timeout does not count")
        XCTAssertFalse(said.contains("reply 2/0"), "nor is it reported")
        XCTAssertTrue(said.contains("send failed 3/0 \(Errno.hostUnreachable)"))
        XCTAssertEqual(engine.statistics.map(\.sent), [1, 1, 1, 1])
        XCTAssertEqual(engine.statistics.map(\.received), [1, 0, 0, 0])
        XCTAssertEqual(engine.statistics[0].receivedTotal, 2, "the duplicate counted apart")
        XCTAssertEqual(said.filter { $0.hasPrefix("duplicate") }, ["duplicate 0/0"])
        XCTAssertEqual(engine.aliveCount, 1)
    }

    /// Error-queue entries as a datagram socket gets them: the kernel's own error (EMSGSIZE
    /// with the path MTU) is reported on its probe; an ICMP error about a packet to another
    /// address, though it quotes our identifier and a sequence we sent, is not about our probe.
    func testQueuedLocalErrorsAndErrorsForAnotherDestination() throws {
        let clock = ManualClock()
        let transport = FakeSocketGroup(clock: clock)
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
        XCTAssertTrue(events.contains(.localError(PingProbe(target: 1, index: 0, sequence: 1), error: .messageTooLong, info: 1400)))
        XCTAssertFalse(events.contains { if case .icmpError = $0 { true } else { false } }, "the forged error is dropped")
        XCTAssertEqual(engine.statistics.map(\.received), [1, 0])
        XCTAssertTrue(said(events).contains("timeout 1/0"), "the probe the kernel refused is lost when its time is up")
    }

    /// Without a count, fping's default mode: a target is tried until it answers, at most
    /// four times, each wait 1.5 times the last.
    func testDefaultModeRetriesWithBackoffUntilAnswered() throws {
        let clock = ManualClock()
        let start = clock.monotonicNanoseconds
        let transport = FakeSocketGroup(clock: clock)
        transport.answer = { [self] target, packet in target == self.far ? [(ms, Self.reply(to: packet, from: target))] : [] }
        var configuration = PingConfiguration.fping()
        configuration.timeout = .nanoseconds(100 * ms)
        let (_, engine) = try run([far, silent], configuration, transport: transport)
        XCTAssertEqual(transport.sent.filter { $0.target == far }.count, 1)
        let retries = transport.sent.filter { $0.target == silent }.map { ($0.time - start) / ms }
        XCTAssertEqual(retries, [10, 110, 260, 485], "waits of 100, 150, 225 ms between tries")
        XCTAssertEqual(engine.statistics.map(\.sent), [1, 4])
        XCTAssertEqual((clock.monotonicNanoseconds - start) / ms, 485 + 337, "the last wait is 337.5 ms")
    }

    /// A stop (Ctrl-C) ends the run at once; what was counted stays.
    /// --loop's count, Int.max, with a target at the last index the queue holds: its probe
    /// goes, and the queue ends there instead of trapping on the next index.
    func testLoopEndsAtTheLastQueuedIndex() throws {
        var configuration = counted(.max, interval: 10 * ms, period: 100 * ms, timeout: 50 * ms)
        configuration.recordsEachProbe = false
        var engine = PingEngine(targets: [far], identifiers: (0x4242, 0x4343), configuration: configuration)
        engine.due[0].index = Int32.max
        let probe = try XCTUnwrap(engine.nextProbe(now: MonotonicInstant(nanoseconds: 1_000 * ms)))
        XCTAssertEqual(probe.probe.index, Int(Int32.max))
        XCTAssertEqual(engine.due.count - engine.dueHead, 0, "no index past Int32.max queued")
    }

    func testStopEndsTheRun() throws {
        let clock = ManualClock()
        let transport = FakeSocketGroup(clock: clock)
        transport.answer = { [self] target, packet in
            target == self.far ? [(ms, Self.reply(to: packet, from: target)), (5 * ms, .interrupted)] : []
        }
        let configuration = counted(10, interval: 10 * ms, period: 100 * ms, timeout: 50 * ms)
        let (events, engine) = try run([far, silent], configuration, transport: transport)
        XCTAssertEqual(said(events).last, "finished")
        XCTAssertEqual(engine.statistics[0].received, 1)
        XCTAssertEqual(transport.sent.count, 1, "stopped before the second target's turn")
    }
}

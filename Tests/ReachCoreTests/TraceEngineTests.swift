import ReachSystem
import XCTest

@testable import ReachCore

/// The engine and traceroute's schedule over a fake network: a chain of routers at fixed
/// round trips, some silent, and a destination; time moves only when the engine waits.
final class TraceEngineTests: XCTestCase {
    let destination = try! IPAddress.parse("198.51.100.7")

    /// A path of `routers` (nil: silent) then the destination, each answering after `rtt`.
    final class FakeChain: TraceTransport {
        var now = MonotonicInstant(nanoseconds: 1_000_000_000)
        let hops: [IPAddress?]
        let rtt: TimeSpan
        let destination: IPAddress
        /// What the destination answers with: nil a port unreachable (the destination
        /// reached), else this ICMP unreachable code from the last router.
        var unreachableCode: UInt8?
        /// How many of those unreachables are not sent (a router's rate limit).
        var unreachablesHeldBack = 0
        var pending: [TraceReply] = []
        var sent: [(sequence: UInt16, hop: Int)] = []

        init(hops: [IPAddress?], destination: IPAddress, rtt: TimeSpan = .milliseconds(2)) {
            self.hops = hops
            self.destination = destination
            self.rtt = rtt
        }

        func send(sequence: UInt16, hopLimit: Int) throws -> Errno? {
            sent.append((sequence, hopLimit))
            let at = now + rtt * Int64(min(hopLimit, hops.count + 1))
            if hopLimit <= hops.count {
                guard let router = hops[hopLimit - 1] else { return nil }
                pending.append(TraceReply(sequence: sequence, responder: router, receivedAt: at, icmpType: 11, icmpCode: 0))
            } else if let code = unreachableCode, let last = hops.last ?? nil {
                if unreachablesHeldBack > 0 {
                    unreachablesHeldBack -= 1
                    return nil
                }
                pending.append(TraceReply(sequence: sequence, responder: last, receivedAt: at, icmpType: 3, icmpCode: code))
            } else {
                pending.append(TraceReply(sequence: sequence, responder: destination, receivedAt: at, icmpType: 3, icmpCode: 3))
            }
            return nil
        }

        func wait(until deadline: MonotonicInstant?, _ deliver: (TraceReply) -> Void) throws -> Bool {
            pending.sort { $0.receivedAt < $1.receivedAt }
            if let first = pending.first, deadline.map({ first.receivedAt <= $0 }) ?? true {
                now = max(now, first.receivedAt)
                deliver(pending.removeFirst())
            } else if let deadline {
                now = max(now, deadline)
            }
            return true
        }
    }

    private func trace(_ chain: FakeChain, _ settings: TraceSettings) throws -> TraceResult {
        let engine = TraceEngine(settings: settings, family: .ipv4, transport: chain, clock: { chain.now })
        var seen: [TraceProbeOutcome] = []
        let result = try engine.pass { if case .probe(let outcome) = $0 { seen.append(outcome) } }
        XCTAssertEqual(seen, result.outcomes, "every outcome handed on as it settled, in order")
        return result
    }

    private func router(_ n: Int) -> IPAddress { try! IPAddress.parse("198.18.\(n).1") }

    func testReachesTheDestinationAndStopsAtItsHop() throws {
        let chain = FakeChain(hops: [router(0), router(1), router(2)], destination: destination)
        let result = try trace(chain, TraceSettings())
        XCTAssertEqual(result.stop, .reachedDestination(hop: 4))
        XCTAssertEqual(result.outcomes.count, 12)
        XCTAssertEqual(result.outcomes.map(\.hop), [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4])
        let expected: [IPAddress?] = [router(0), router(1), router(2), destination].flatMap { [$0, $0, $0] }
        XCTAssertEqual(result.outcomes.map { $0.answer?.responder }, expected)
        XCTAssertEqual(result.outcomes[0].answer?.roundTrip, .milliseconds(2))
        XCTAssertEqual(result.outcomes[9].answer?.verdict, .destination)
        // 16 in flight at once (hops 1 to 6 first), none past the destination's hop after.
        XCTAssertEqual(Set(chain.sent.prefix(16).map(\.hop)), Set(1...6))
        XCTAssertEqual(result.lastAnswered?.hop, 4)
    }

    func testASilentHopWaitsOnlyNearTimesALaterHopsRoundTrip() throws {
        let chain = FakeChain(hops: [router(0), nil, router(2)], destination: destination)
        let result = try trace(chain, TraceSettings())
        XCTAssertEqual(result.stop, .reachedDestination(hop: 4))
        XCTAssertEqual(result.outcomes.filter { $0.hop == 2 }.map(\.answer), [nil, nil, nil])
        // NEAR (10) times hop 3's 6 ms (plus 1 ms), far below MAX's 5 s.
        XCTAssertLessThan(chain.now - MonotonicInstant(nanoseconds: 1_000_000_000), .milliseconds(200))
    }

    func testAWaitOfMaxAloneWaitsTheWholeMaximum() throws {
        let chain = FakeChain(hops: [router(0), nil], destination: destination)
        var settings = TraceSettings()
        settings.waits = TraceWaits(maximum: .seconds(2), here: 0, near: 0)
        let result = try trace(chain, settings)
        XCTAssertEqual(result.stop, .reachedDestination(hop: 3))
        XCTAssertGreaterThanOrEqual(chain.now - MonotonicInstant(nanoseconds: 1_000_000_000), .seconds(2))
    }

    func testAnUnreachableEndsTheTraceWithItsAnnotation() throws {
        let chain = FakeChain(hops: [router(0), router(1)], destination: destination)
        chain.unreachableCode = 1
        let result = try trace(chain, TraceSettings())
        XCTAssertEqual(result.stop, .stopped(.hostUnreachable, hop: 3))
        XCTAssertEqual(result.outcomes.last?.answer?.responder, router(1))
        XCTAssertFalse(result.reachedDestination)
    }

    func testAnnotatedAnswersToLaterProbesMoveBackToTheHopTheyBelongTo() throws {
        let chain = FakeChain(hops: [router(0), router(1)], destination: destination)
        chain.unreachableCode = 1
        chain.unreachablesHeldBack = 3
        let result = try trace(chain, TraceSettings())
        // traceroute.c check_expired: hop 3's expired probes take hop 4's !H answers.
        XCTAssertEqual(result.stop, .stopped(.hostUnreachable, hop: 3))
        XCTAssertEqual(result.outcomes.filter { $0.hop == 3 }.map { $0.answer?.responder }, [router(1), router(1), router(1)])
        XCTAssertEqual(result.outcomes.last?.hop, 3)
    }

    func testFirstHopMaxHopsAndProbesPerHop() throws {
        let chain = FakeChain(hops: [router(0), router(1), router(2), router(3)], destination: destination)
        var settings = TraceSettings()
        (settings.firstHop, settings.maxHops, settings.probesPerHop, settings.simultaneous) = (2, 3, 2, 1)
        let result = try trace(chain, settings)
        XCTAssertEqual(result.outcomes.map(\.hop), [2, 2, 3, 3])
        XCTAssertEqual(result.stop, .maxHopsReached(3))
        XCTAssertEqual(chain.sent.map(\.hop), [2, 2, 3, 3], "one probe in flight at a time")
    }

    func testADeadlineCutsThePassShort() throws {
        let chain = FakeChain(hops: [router(0), nil, nil], destination: destination)
        var settings = TraceSettings()
        settings.simultaneous = 1
        let engine = TraceEngine(settings: settings, family: .ipv4, transport: chain, clock: { chain.now })
        let result = try engine.pass(deadline: chain.now + .seconds(1)) { _ in }
        XCTAssertEqual(result.stop, .cutShort)
        XCTAssertEqual(result.outcomes.first?.answer?.responder, router(0))
    }

    func testWaitsFollowTracerouteGetTimeout() {
        let waits = TraceWaits()
        XCTAssertEqual(waits.wait(sameHop: nil, later: nil), .seconds(5))
        XCTAssertEqual(waits.wait(sameHop: .milliseconds(9), later: .milliseconds(1)), .milliseconds(30))
        XCTAssertEqual(waits.wait(sameHop: nil, later: .milliseconds(9)), .milliseconds(100))
        XCTAssertEqual(waits.wait(sameHop: .seconds(3), later: nil), .seconds(5), "never past MAX")
        XCTAssertEqual(
            TraceWaits(maximum: .seconds(5), here: 0, near: 0).wait(sameHop: .milliseconds(1), later: .milliseconds(1)), .seconds(5))
    }
}

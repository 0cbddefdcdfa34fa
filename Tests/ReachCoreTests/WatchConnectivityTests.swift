import XCTest
@testable import ReachCore
import ReachSystem

/// Which connectivity goes with each evaluation of `watch --probe`, on a manual clock.
final class WatchConnectivityTests: XCTestCase {
    typealias F = WatchFixtures

    private func verdict(_ state: ConnectivityState) -> ConnectivityReport {
        let outcome: ProbeResult.Outcome = switch state {
        case .full: .passed
        case .portal: .portal
        case .limited, .none: .failed
        }
        return ConnectivityReport(
            state: state,
            probes: [ProbeResult(spec: .tcp(host: "198.51.100.2", port: 443), outcome: outcome, elapsed: .milliseconds(1), detail: "")])
    }

    private func attached(_ report: ReachabilityReport, _ connectivity: ConnectivityReport) -> ReachabilityReport {
        var report = report
        report.attach(connectivity)
        return report
    }

    func testNoRouteIsNoneAtOnceWithNothingProbed() throws {
        let clock = ManualWatchClock()
        var tracker = WatchConnectivity(schedule: ProbeSchedule(interval: TimeSpan(milliseconds: 1_000)))
        let observed = try XCTUnwrap(tracker.evaluated(F.noRoute, afterChange: false, at: clock.now))
        XCTAssertEqual(observed.report.connectivity, ConnectivityReport(state: .none, probes: []))
        XCTAssertEqual(observed.since, clock.now)
        XCTAssertFalse(tracker.shouldStart(at: clock.monotonic))
        XCTAssertNil(tracker.nextDeadline)
    }

    func testAUsableRouteIsHeldUntilTheFirstCheckThenCarriesTheVerdict() throws {
        var clock = ManualWatchClock()
        var tracker = WatchConnectivity(schedule: ProbeSchedule(interval: TimeSpan(milliseconds: 1_000)))
        let seen = clock.now
        XCTAssertNil(tracker.evaluated(F.up, afterChange: false, at: seen), "held: no line pairs a route with a guess")
        XCTAssertTrue(tracker.shouldStart(at: clock.monotonic))
        tracker.started(at: clock.monotonic)
        clock.advance(300)
        let first = try XCTUnwrap(tracker.checkFinished(verdict(.portal), at: clock.now))
        XCTAssertEqual(first.report, attached(F.up, verdict(.portal)))
        XCTAssertEqual(first.since, seen, "the time is when the route was first seen")
        XCTAssertTrue(first.report.paths[0].flags.contains(.interventionRequired))

        // A later change is observed at once with the last verdict, and asks for a check.
        clock.advance(100)
        let moved = F.internet(F.path("eth1"))
        let now = try XCTUnwrap(tracker.evaluated(moved, afterChange: true, at: clock.now))
        XCTAssertEqual(now.report, attached(moved, verdict(.portal)))
        XCTAssertTrue(tracker.shouldStart(at: clock.monotonic))
        tracker.started(at: clock.monotonic)
        clock.advance(20)
        let next = try XCTUnwrap(tracker.checkFinished(verdict(.full), at: clock.now))
        XCTAssertEqual(next.report, attached(moved, verdict(.full)), "the verdict goes with the latest evaluation")
        XCTAssertEqual(next.since, clock.now)
    }

    func testARouteLostDuringACheckDiscardsItsVerdictAndTheNextCheckDecides() throws {
        var clock = ManualWatchClock()
        var tracker = WatchConnectivity(schedule: ProbeSchedule(interval: TimeSpan(milliseconds: 1_000)))
        _ = tracker.evaluated(F.up, afterChange: false, at: clock.now)
        tracker.started(at: clock.monotonic)
        clock.advance(10)
        let lost = try XCTUnwrap(tracker.evaluated(F.noRoute, afterChange: true, at: clock.now))
        XCTAssertEqual(lost.report.connectivity?.state, ConnectivityState.none)
        clock.advance(10)
        let back = clock.now
        XCTAssertNil(tracker.evaluated(F.up, afterChange: true, at: back), "held again for a fresh check")
        clock.advance(10)
        XCTAssertNil(tracker.checkFinished(verdict(.full), at: clock.now), "a verdict from before the loss says nothing")
        XCTAssertTrue(tracker.shouldStart(at: clock.monotonic), "the return asked for a check")
        tracker.started(at: clock.monotonic)
        clock.advance(10)
        let decided = try XCTUnwrap(tracker.checkFinished(verdict(.limited), at: clock.now))
        XCTAssertEqual(decided.report.connectivity?.state, .limited)
        XCTAssertEqual(decided.since, back)
    }

    func testThePeriodicCheckFollowsTheScheduleAndAChangedVerdictIsAChangedState() throws {
        var clock = ManualWatchClock()
        var tracker = WatchConnectivity(schedule: ProbeSchedule(interval: TimeSpan(milliseconds: 1_000)))
        var machine = WatchStateMachine(configuration: WatchConfiguration(), startedAt: clock.monotonic)
        var lines: [WatchEvent] = []
        func observe(_ observed: (report: ReachabilityReport, since: WatchInstant)?) {
            if let observed { lines += machine.observe(observed.report, at: observed.since) }
        }
        observe(tracker.evaluated(F.up, afterChange: false, at: clock.now))
        for state in [ConnectivityState.full, .full, .limited, .limited, .full] {
            if let due = tracker.nextDeadline, due > clock.monotonic { clock.advance((due - clock.monotonic).milliseconds) }
            XCTAssertTrue(tracker.shouldStart(at: clock.monotonic))
            tracker.started(at: clock.monotonic)
            clock.advance(50)
            observe(tracker.checkFinished(verdict(state), at: clock.now))
        }
        XCTAssertEqual(lines.map(\.kind), [.initial, .change, .change], "full, limited, full: each once")
        XCTAssertEqual(lines.map { $0.current.connectivity?.state }, [.full, .limited, .full])
        XCTAssertEqual(lines.last?.previous?.connectivity?.state, .limited)
    }

    func testUntilReachableWaitsForFullConnectivityWhenProbing() {
        XCTAssertTrue(WaitCondition.reachable.holds(for: F.up), "without probes: the route decides")
        XCTAssertFalse(WaitCondition.reachable.holds(for: attached(F.up, verdict(.portal))))
        XCTAssertFalse(WaitCondition.reachable.holds(for: attached(F.up, verdict(.limited))))
        XCTAssertTrue(WaitCondition.reachable.holds(for: attached(F.up, verdict(.full))))
        XCTAssertTrue(WaitCondition.unreachable.holds(for: attached(F.up, verdict(.limited))))
        XCTAssertTrue(WaitCondition.unreachable.holds(for: attached(F.noRoute, ConnectivityReport(state: .none, probes: []))))
    }
}

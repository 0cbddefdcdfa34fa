import XCTest
@testable import ReachCore
import ReachSystem

/// When `watch --probe` checks, on a manual clock (milliseconds).
final class ProbeScheduleTests: XCTestCase {
    let interval = TimeSpan(milliseconds: 60_000)

    /// A schedule whose route has just become usable, its first check started and ended at `end`.
    private func afterFirstCheck(_ state: ConnectivityState, end: Int64 = 100) -> ProbeSchedule {
        var schedule = ProbeSchedule(interval: interval)
        schedule.evaluated(routeUsable: true, afterChange: false)
        schedule.started(at: .ms(0))
        schedule.finished(state, at: .ms(end))
        return schedule
    }

    func testChecksAtOnceWhenTheRouteIsUsableThenEveryInterval() {
        var schedule = ProbeSchedule(interval: interval)
        XCTAssertFalse(schedule.shouldStart(at: .ms(0)), "nothing before the first evaluation")
        schedule.evaluated(routeUsable: true, afterChange: false)
        XCTAssertTrue(schedule.shouldStart(at: .ms(0)))
        XCTAssertEqual(schedule.nextDeadline, MonotonicInstant(nanoseconds: .min), "due now")
        schedule.started(at: .ms(0))
        XCTAssertFalse(schedule.shouldStart(at: .ms(0)), "one check at a time")
        XCTAssertNil(schedule.nextDeadline, "the running check's descriptor wakes the loop")
        schedule.finished(.full, at: .ms(120))
        XCTAssertEqual(schedule.nextDeadline, .ms(60_120), "the interval counts from the end of the check")
        XCTAssertFalse(schedule.shouldStart(at: .ms(60_119)))
        XCTAssertTrue(schedule.shouldStart(at: .ms(60_120)))
        // An evaluation that no change caused (the same route) asks for nothing.
        schedule.evaluated(routeUsable: true, afterChange: false)
        XCTAssertFalse(schedule.shouldStart(at: .ms(1_000)))
    }

    func testWhileFailingTheWaitDoublesUpToFourTimesThenResetsOnAPass() {
        for failing in [ConnectivityState.limited, .portal] {
            var schedule = afterFirstCheck(failing, end: 0)
            var now = MonotonicInstant.ms(0)
            var waits: [TimeSpan] = []
            for _ in 0..<4 {
                let due = schedule.nextDeadline!
                waits.append(due - now)
                XCTAssertFalse(schedule.shouldStart(at: due - .milliseconds(1)))
                XCTAssertTrue(schedule.shouldStart(at: due))
                schedule.started(at: due)
                now = due + .milliseconds(1_000)
                schedule.finished(failing, at: now)
            }
            XCTAssertEqual(waits.map(\.milliseconds), [120_000, 240_000, 240_000, 240_000], "\(failing)")
            XCTAssertEqual(schedule.currentInterval, .milliseconds(240_000))
            schedule.started(at: now + .milliseconds(240_000))
            schedule.finished(.full, at: now + .milliseconds(241_000))
            XCTAssertEqual(schedule.nextDeadline, now + .milliseconds(241_000 + 60_000), "a pass brings the interval back")
        }
    }

    func testAChangeAsksForACheckAtOnceAndChangesDuringOneAskForExactlyOneMore() {
        var schedule = afterFirstCheck(.full)
        schedule.evaluated(routeUsable: true, afterChange: true)
        XCTAssertTrue(schedule.shouldStart(at: .ms(200)), "a route or link change: check again, before the interval")
        schedule.started(at: .ms(200))
        for _ in 0..<1000 { schedule.evaluated(routeUsable: true, afterChange: true) }
        XCTAssertFalse(schedule.shouldStart(at: .ms(300)), "at most one check in flight")
        XCTAssertNil(schedule.nextDeadline)
        schedule.finished(.full, at: .ms(400))
        XCTAssertTrue(schedule.shouldStart(at: .ms(400)), "the changes during the check ask for one more")
        schedule.started(at: .ms(400))
        schedule.finished(.full, at: .ms(450))
        XCTAssertFalse(schedule.shouldStart(at: .ms(451)), "a thousand changes cost one check")
        XCTAssertEqual(schedule.nextDeadline, .ms(60_450))
    }

    func testNoUsableRouteMeansNoCheckAndNoTimerAndItsReturnStartsAfresh() {
        var schedule = afterFirstCheck(.limited)
        XCTAssertEqual(schedule.currentInterval, .milliseconds(120_000))
        schedule.evaluated(routeUsable: false, afterChange: true)
        XCTAssertFalse(schedule.shouldStart(at: .ms(1_000_000)))
        XCTAssertNil(schedule.nextDeadline, "idle without a route: no wake-ups")
        XCTAssertEqual(schedule.currentInterval, .milliseconds(60_000), "the backoff is forgotten with the route")
        // The route comes back, whatever caused the evaluation: check at once.
        schedule.evaluated(routeUsable: true, afterChange: false)
        XCTAssertTrue(schedule.shouldStart(at: .ms(1_000_001)))
    }

    func testTheRouteGoingAwayDuringACheckLeavesNoTimerBehind() {
        var schedule = ProbeSchedule(interval: interval)
        schedule.evaluated(routeUsable: true, afterChange: false)
        schedule.started(at: .ms(0))
        schedule.evaluated(routeUsable: false, afterChange: true)
        schedule.finished(.limited, at: .ms(50))
        XCTAssertNil(schedule.nextDeadline)
        XCTAssertFalse(schedule.shouldStart(at: .ms(10_000_000)))
    }
}

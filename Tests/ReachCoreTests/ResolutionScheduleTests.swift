import XCTest
@testable import ReachCore
import ReachSystem

final class ResolutionScheduleTests: XCTestCase {
    let interval = TimeSpan(milliseconds: 60_000)
    let patience = TimeSpan(milliseconds: 5_000)

    func testLooksUpAtOnceThenEveryInterval() {
        var schedule = ResolutionSchedule(interval: interval, patience: patience, now: 100)
        XCTAssertTrue(schedule.shouldStart(at: 100))
        schedule.started(at: 100)
        XCTAssertFalse(schedule.shouldStart(at: 100))
        schedule.finished(at: 150)
        XCTAssertEqual(schedule.nextDeadline, 60_150)
        XCTAssertFalse(schedule.shouldStart(at: 60_149))
        XCTAssertTrue(schedule.shouldStart(at: 60_150))
    }

    func testChangesDuringALookupAskForExactlyOneMoreAfterIt() {
        var schedule = ResolutionSchedule(interval: interval, patience: patience, now: 0)
        schedule.started(at: 0)
        schedule.finished(at: 10)
        schedule.started(at: 20)
        for _ in 0..<1000 { schedule.requestRefresh() }
        XCTAssertFalse(schedule.shouldStart(at: 30), "at most one lookup in flight")
        XCTAssertNil(schedule.nextDeadline, "the running lookup's descriptor wakes the loop")
        schedule.finished(at: 40)
        XCTAssertTrue(schedule.shouldStart(at: 40))
        schedule.started(at: 40)
        schedule.finished(at: 50)
        XCTAssertFalse(schedule.shouldStart(at: 51), "the thousand changes cost one lookup")
    }

    func testPatienceAppliesOnlyToTheFirstLookup() {
        var schedule = ResolutionSchedule(interval: interval, patience: patience, now: 0)
        schedule.started(at: 0)
        XCTAssertEqual(schedule.nextDeadline, 5_000)
        XCTAssertFalse(schedule.patienceExpired(at: 4_999))
        XCTAssertTrue(schedule.patienceExpired(at: 5_000))
        schedule.spendPatience()
        XCTAssertFalse(schedule.patienceExpired(at: 5_001), "shown once, not on every wake-up")
        XCTAssertNil(schedule.nextDeadline, "no timer: the lookup's descriptor wakes the loop")
        schedule.finished(at: 6_000)
        schedule.started(at: 70_000)
        XCTAssertFalse(schedule.patienceExpired(at: 100_000))
    }
}

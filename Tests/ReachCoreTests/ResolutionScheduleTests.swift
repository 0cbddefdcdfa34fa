import XCTest
@testable import ReachCore
import ReachSystem

final class ResolutionScheduleTests: XCTestCase {
    let interval = TimeSpan(milliseconds: 60_000)
    let patience = TimeSpan(milliseconds: 5_000)

    func testLooksUpAtOnceThenEveryInterval() {
        var schedule = ResolutionSchedule(interval: interval, patience: patience, now: .ms(100))
        XCTAssertTrue(schedule.shouldStart(at: .ms(100)))
        schedule.started(at: .ms(100))
        XCTAssertFalse(schedule.shouldStart(at: .ms(100)))
        schedule.finished(at: .ms(150))
        XCTAssertEqual(schedule.nextDeadline, .ms(60_150))
        XCTAssertFalse(schedule.shouldStart(at: .ms(60_149)))
        XCTAssertTrue(schedule.shouldStart(at: .ms(60_150)))
    }

    func testChangesDuringALookupAskForExactlyOneMoreAfterIt() {
        var schedule = ResolutionSchedule(interval: interval, patience: patience, now: .ms(0))
        schedule.started(at: .ms(0))
        schedule.finished(at: .ms(10))
        schedule.started(at: .ms(20))
        for _ in 0..<1000 { schedule.requestRefresh() }
        XCTAssertFalse(schedule.shouldStart(at: .ms(30)), "at most one lookup in flight")
        XCTAssertNil(schedule.nextDeadline, "the running lookup's descriptor wakes the loop")
        schedule.finished(at: .ms(40))
        XCTAssertTrue(schedule.shouldStart(at: .ms(40)))
        schedule.started(at: .ms(40))
        schedule.finished(at: .ms(50))
        XCTAssertFalse(schedule.shouldStart(at: .ms(51)), "the thousand changes cost one lookup")
    }

    func testPatienceAppliesOnlyToTheFirstLookup() {
        var schedule = ResolutionSchedule(interval: interval, patience: patience, now: .ms(0))
        schedule.started(at: .ms(0))
        XCTAssertEqual(schedule.nextDeadline, .ms(5_000))
        XCTAssertFalse(schedule.patienceExpired(at: .ms(4_999)))
        XCTAssertTrue(schedule.patienceExpired(at: .ms(5_000)))
        schedule.spendPatience()
        XCTAssertFalse(schedule.patienceExpired(at: .ms(5_001)), "shown once, not on every wake-up")
        XCTAssertNil(schedule.nextDeadline, "no timer: the lookup's descriptor wakes the loop")
        schedule.finished(at: .ms(6_000))
        schedule.started(at: .ms(70_000))
        XCTAssertFalse(schedule.patienceExpired(at: .ms(100_000)))
    }
}

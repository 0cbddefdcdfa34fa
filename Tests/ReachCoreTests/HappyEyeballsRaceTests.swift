import XCTest
@testable import ReachCore
import ReachSystem

/// The race of `host --connect`, driven by hand: RFC 8305's order, its 250 ms Connection
/// Attempt Delay, the first connection winning.
final class HappyEyeballsRaceTests: XCTestCase {
    private let start = MonotonicInstant(nanoseconds: 1_000_000_000)

    private func at(_ milliseconds: Int64) -> MonotonicInstant { start + .milliseconds(milliseconds) }

    func testFamiliesTakeTurnsFromTheFirstAddresssFamily() {
        let addresses = ["2001:db8::1", "2001:db8::2", "198.51.100.1", "198.51.100.2", "2001:db8::3"].map(address)
        XCTAssertEqual(HappyEyeballsRace.interleaved(addresses).map(\.description),
                       ["2001:db8::1", "198.51.100.1", "2001:db8::2", "198.51.100.2", "2001:db8::3"])
        XCTAssertEqual(HappyEyeballsRace.interleaved([address("198.51.100.1"), address("2001:db8::1")]).map(\.family), [.ipv4, .ipv6])
        XCTAssertEqual(HappyEyeballsRace.interleaved([]), [])
    }

    func testTheNextAttemptWaitsTheDelayWhileOneIsInFlight() {
        var race = HappyEyeballsRace(addresses: [address("2001:db8::1"), address("198.51.100.1")], start: start)
        XCTAssertTrue(race.nextAttemptDue(at: at(0)))
        XCTAssertEqual(race.started(at: at(0)), 0)
        XCTAssertFalse(race.nextAttemptDue(at: at(249)))
        XCTAssertEqual(race.nextAttemptDeadline, at(250))
        XCTAssertTrue(race.nextAttemptDue(at: at(250)))
        XCTAssertEqual(race.started(at: at(250)), 1)
        XCTAssertNil(race.nextAttemptDeadline, "no address left")
        race.finished(1, .connected, at: at(251))
        XCTAssertTrue(race.isOver)
        XCTAssertEqual(race.winner, 1)
        XCTAssertEqual(race.attempts.map(\.result), [.cancelled, .connected])
        XCTAssertEqual(race.attempts[1].started, .milliseconds(250))
        XCTAssertEqual(race.outcome(of: .ipv4)?.result, .connected)
        XCTAssertEqual(race.outcome(of: .ipv6)?.ended, .milliseconds(251))
    }

    func testAFailureWithNothingInFlightStartsTheNextAtOnce() {
        var race = HappyEyeballsRace(addresses: [address("2001:db8::1"), address("198.51.100.1")], start: start)
        _ = race.started(at: at(0))
        race.finished(0, .refused, at: at(1))
        XCTAssertTrue(race.nextAttemptDue(at: at(1)))
        _ = race.started(at: at(1))
        race.finished(1, .refused, at: at(2))
        XCTAssertTrue(race.isOver)
        XCTAssertNil(race.winner)
        XCTAssertFalse(race.nextAttemptDue(at: at(300)))
    }

    func testALateConnectionAfterTheWinnerChangesNothing() {
        var race = HappyEyeballsRace(addresses: [address("2001:db8::1"), address("198.51.100.1")], start: start)
        _ = race.started(at: at(0))
        _ = race.started(at: at(250))
        race.finished(0, .connected, at: at(260))
        race.finished(1, .connected, at: at(261))
        XCTAssertEqual(race.winner, 0)
        XCTAssertEqual(race.attempts.map(\.result), [.connected, .cancelled])
    }

    func testTheRacesTimeRunningOutEndsWhatIsInFlight() {
        var race = HappyEyeballsRace(addresses: [address("2001:db8::1")], start: start)
        _ = race.started(at: at(0))
        race.timeOut(at: at(5000))
        XCTAssertTrue(race.isOver)
        XCTAssertEqual(race.attempts.first?.result, .timedOut)
        XCTAssertEqual(race.attempts.first?.ended, .seconds(5))
    }
}

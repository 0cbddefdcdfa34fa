import XCTest
@testable import ReachCore
import ReachSystem

/// Reports for the tests: an IPv4 internet path, reachable through `link` or not.
enum WatchFixtures {
    static let probe = try! IPAddress.parse("8.8.8.8")
    static let gateway = try! IPAddress.parse("198.18.0.1")

    static func path(_ link: String = "eth0", reason: UnreachableReason? = nil, gateway: IPAddress? = WatchFixtures.gateway,
                     source: String = "198.18.0.2", destination: IPAddress = probe) -> PathReport {
        PathReport(destination: destination, flags: reason == nil ? [.reachable] : [.connectionRequired], reason: reason,
                   link: LinkReport(name: link, index: 2, kind: .ethernet, operState: reason == nil ? .up : .down),
                   gateway: gateway, source: try! IPAddress.parse(source))
    }

    static func internet(_ paths: PathReport...) -> ReachabilityReport {
        ReachabilityReport(subject: .internet, paths: paths)
    }

    static let up = internet(path())
    static let noCarrier = internet(path(reason: .noCarrier))
    static let noRoute = internet(PathReport(destination: probe, flags: [], reason: .noRoute))
}

/// A manual clock: monotonic and wall milliseconds move together.
struct ManualWatchClock {
    var milliseconds: Int64 = 1_000
    let wallOffset: Int64 = 1_795_000_000_000
    var monotonic: MonotonicInstant { .ms(milliseconds) }
    var now: WatchInstant {
        WatchInstant(monotonic: monotonic, wall: RealtimeInstant(nanoseconds: (milliseconds + wallOffset) * 1_000_000))
    }
    mutating func advance(_ milliseconds: Int64) { self.milliseconds += milliseconds }
}

final class WatchStateMachineTests: XCTestCase {
    typealias F = WatchFixtures

    func testFirstObservationIsReportedAtOnceAsInitial() {
        let clock = ManualWatchClock()
        var machine = WatchStateMachine(configuration: WatchConfiguration(), startedAt: clock.monotonic)
        let events = machine.observe(F.up, at: clock.now)
        XCTAssertEqual(events, [WatchEvent(kind: .initial, time: clock.now.wall, current: F.up, previous: nil)])
        XCTAssertNil(machine.end)
        XCTAssertNil(machine.nextDeadline, "nothing to wake for without settle or timeout")
    }

    func testEachRealChangeGivesOneEventWithThePreviousState() {
        var clock = ManualWatchClock()
        var machine = WatchStateMachine(configuration: WatchConfiguration(), startedAt: clock.monotonic)
        _ = machine.observe(F.up, at: clock.now)
        clock.advance(10)
        XCTAssertEqual(machine.observe(F.noCarrier, at: clock.now),
                       [WatchEvent(kind: .change, time: clock.now.wall, current: F.noCarrier, previous: F.up)])
        clock.advance(10)
        XCTAssertEqual(machine.observe(F.noCarrier, at: clock.now), [], "the same state again is no change")
        clock.advance(10)
        XCTAssertEqual(machine.observe(F.up, at: clock.now).map(\.previous), [F.noCarrier])
        XCTAssertEqual(machine.changeCount, 2)
    }

    func testDetailsThatAreNotComparedNeverTriggerALine() {
        let clock = ManualWatchClock()
        var machine = WatchStateMachine(configuration: WatchConfiguration(), startedAt: clock.monotonic)
        _ = machine.observe(F.noCarrier, at: clock.now)
        // Reason, flags, source, ifindex change; reachable, link, kind, gateway do not.
        var other = F.path(reason: .linkDown, source: "198.18.0.9")
        other.link?.index = 7
        other.flags = []
        XCTAssertEqual(machine.observe(F.internet(other), at: clock.now), [])
    }

    func testComparedFieldsEachTriggerALine() {
        var clock = ManualWatchClock()
        var machine = WatchStateMachine(configuration: WatchConfiguration(), startedAt: clock.monotonic)
        _ = machine.observe(F.up, at: clock.now)
        var kind = F.path()
        kind.link?.kind = .wifi
        let changes = [F.internet(F.path("eth1")), F.internet(F.path("eth1", gateway: nil)), F.internet(kind), F.noRoute]
        for report in changes {
            clock.advance(1)
            XCTAssertEqual(machine.observe(report, at: clock.now).count, 1, "\(report)")
        }
    }

    func testHostAddressOrderIsIgnored() {
        let a = F.path(destination: try! IPAddress.parse("198.51.100.7"))
        let b = F.path(destination: try! IPAddress.parse("2001:db8::7"))
        let clock = ManualWatchClock()
        var machine = WatchStateMachine(configuration: WatchConfiguration(), startedAt: clock.monotonic)
        _ = machine.observe(ReachabilityReport(subject: .host("db"), paths: [a, b]), at: clock.now)
        XCTAssertEqual(machine.observe(ReachabilityReport(subject: .host("db"), paths: [b, a]), at: clock.now), [])
        let unresolved = ReachabilityReport(subject: .host("db"), paths: [], resolutionFailure: "Name or service not known")
        XCTAssertEqual(machine.observe(unresolved, at: clock.now).count, 1, "a name that stops resolving is a change")
    }

    func testSettleSuppressesAShortFlapAndReportsALongOutageWithTheTimeItBegan() {
        var clock = ManualWatchClock()
        let settle = WatchConfiguration(settle: TimeSpan(milliseconds: 300))
        var machine = WatchStateMachine(configuration: settle, startedAt: clock.monotonic)
        XCTAssertEqual(machine.observe(F.up, at: clock.now).count, 1, "the first state is never held back")
        clock.advance(100)
        XCTAssertEqual(machine.observe(F.noCarrier, at: clock.now), [])
        XCTAssertEqual(machine.nextDeadline, clock.monotonic + .milliseconds(300))
        clock.advance(50)
        XCTAssertEqual(machine.observe(F.up, at: clock.now), [], "a 50 ms flap")
        XCTAssertNil(machine.nextDeadline)
        clock.advance(1000)
        XCTAssertEqual(machine.advance(to: clock.monotonic), [])

        let outageStart = clock.now
        XCTAssertEqual(machine.observe(F.noCarrier, at: clock.now), [])
        clock.advance(299)
        XCTAssertEqual(machine.advance(to: clock.monotonic), [])
        clock.advance(1)
        XCTAssertEqual(machine.advance(to: clock.monotonic),
                       [WatchEvent(kind: .change, time: outageStart.wall, current: F.noCarrier, previous: F.up)])
        clock.advance(700)
        XCTAssertEqual(machine.observe(F.up, at: clock.now), [])
        clock.advance(300)
        XCTAssertEqual(machine.advance(to: clock.monotonic).map(\.current), [F.up])
    }

    func testSettleRestartsWhenTheCandidateStateChanges() {
        var clock = ManualWatchClock()
        var machine = WatchStateMachine(configuration: WatchConfiguration(settle: TimeSpan(milliseconds: 300)), startedAt: clock.monotonic)
        _ = machine.observe(F.up, at: clock.now)
        _ = machine.observe(F.noCarrier, at: clock.now)
        clock.advance(200)
        _ = machine.observe(F.noRoute, at: clock.now)
        clock.advance(200)
        XCTAssertEqual(machine.advance(to: clock.monotonic), [], "no route has held only 200 ms")
        clock.advance(100)
        XCTAssertEqual(machine.advance(to: clock.monotonic).map(\.current), [F.noRoute])
    }

    func testUntilAlreadyTrueEndsAfterTheInitialLine() {
        let clock = ManualWatchClock()
        var machine = WatchStateMachine(configuration: WatchConfiguration(until: .reachable), startedAt: clock.monotonic)
        XCTAssertEqual(machine.observe(F.up, at: clock.now).count, 1)
        XCTAssertEqual(machine.end, .conditionMet)
        XCTAssertEqual(machine.observe(F.noRoute, at: clock.now), [], "nothing after the end")
    }

    func testUntilReachedByAChange() {
        var clock = ManualWatchClock()
        let configuration = WatchConfiguration(until: .unreachable, timeout: TimeSpan(milliseconds: 5000))
        var machine = WatchStateMachine(configuration: configuration, startedAt: clock.monotonic)
        _ = machine.observe(F.up, at: clock.now)
        XCTAssertNil(machine.end)
        clock.advance(1000)
        _ = machine.observe(F.noCarrier, at: clock.now)
        XCTAssertEqual(machine.end, .conditionMet)
    }

    func testTimeoutEndsAtItsDeadline() {
        var clock = ManualWatchClock()
        let configuration = WatchConfiguration(until: .reachable, timeout: TimeSpan(milliseconds: 1000))
        var machine = WatchStateMachine(configuration: configuration, startedAt: clock.monotonic)
        _ = machine.observe(F.noRoute, at: clock.now)
        XCTAssertEqual(machine.nextDeadline, clock.monotonic + .milliseconds(1000))
        clock.advance(999)
        _ = machine.advance(to: clock.monotonic)
        XCTAssertNil(machine.end)
        clock.advance(1)
        _ = machine.advance(to: clock.monotonic)
        XCTAssertEqual(machine.end, .timedOut)
        XCTAssertNil(machine.nextDeadline)
    }

    func testASettledStateDueAtTheTimeoutIsReportedBeforeTheEnd() {
        var clock = ManualWatchClock()
        let configuration = WatchConfiguration(
            settle: TimeSpan(milliseconds: 500), until: .reachable, timeout: TimeSpan(milliseconds: 1000))
        var machine = WatchStateMachine(configuration: configuration, startedAt: clock.monotonic)
        _ = machine.observe(F.noRoute, at: clock.now)
        clock.advance(500)
        _ = machine.observe(F.up, at: clock.now)
        clock.advance(500)
        XCTAssertEqual(machine.advance(to: clock.monotonic).count, 1)
        XCTAssertEqual(machine.end, .conditionMet)
    }

    func testCountEndsAfterNChangesNotCountingTheInitialLine() {
        var clock = ManualWatchClock()
        var machine = WatchStateMachine(configuration: WatchConfiguration(count: 2), startedAt: clock.monotonic)
        _ = machine.observe(F.up, at: clock.now)
        clock.advance(1)
        _ = machine.observe(F.noCarrier, at: clock.now)
        XCTAssertNil(machine.end)
        clock.advance(1)
        _ = machine.observe(F.up, at: clock.now)
        XCTAssertEqual(machine.end, .countReached)
    }

    func testStopKeepsTheFirstReason() {
        var machine = WatchStateMachine(configuration: WatchConfiguration(), startedAt: .ms(0))
        machine.stop(.interrupted)
        machine.stop(.readerGone)
        XCTAssertEqual(machine.end, .interrupted)
    }

    func testInterfaceRestrictionMakesOtherLinksUnreachable() {
        let report = F.internet(F.path("eth0"), F.path("wlan0", destination: try! IPAddress.parse("2001:4860:4860::8888")))
        let restricted = report.restricted(toInterface: "wlan0")
        XCTAssertEqual(restricted.paths.map(\.reason), [.otherInterface, nil])
        XCTAssertFalse(restricted.paths[0].flags.contains(.reachable))
        XCTAssertTrue(restricted.isReachable)
        XCTAssertFalse(F.up.restricted(toInterface: "wlan0").isReachable)
        XCTAssertEqual(F.noCarrier.restricted(toInterface: "wlan0"), F.noCarrier, "an unreachable path keeps its own reason")
    }
}

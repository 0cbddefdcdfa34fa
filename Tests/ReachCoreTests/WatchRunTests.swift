import XCTest
@testable import ReachCore
import ReachSystem

/// The watch loop's steps one at a time, over the state of one run.
final class WatchRunTests: XCTestCase {
    typealias F = WatchFixtures

    private let eth0 = LinkFacts(
        index: 2, name: "eth0", hardwareType: .ether, flags: [.up, .running, .lowerUp], operState: .up, carrier: true)

    private func event(_ kind: WatchEvent.Kind, _ report: ReachabilityReport = F.up) -> WatchEvent {
        WatchEvent(kind: kind, time: RealtimeInstant(nanoseconds: 0), current: report, previous: kind == .initial ? nil : F.up)
    }

    private func run(targets: Int, any: Bool = false, _ configuration: WatchConfiguration = WatchConfiguration()) -> WatchRun {
        WatchRun(
            targets: targets, any: any, configuration: configuration, resolveInterval: .milliseconds(60_000),
            patience: .milliseconds(5_000), holdoff: .milliseconds(5), probing: nil, now: .ms(1_000))
    }

    private func loop(_ targets: [WatchTarget], _ events: ScriptedWatchEvents, probing: WatchProbing? = nil) -> WatchLoop {
        let kernel = FakeKernel(
            routes: [address("198.51.100.1"): .route(RouteAnswer(family: .ipv4, type: .unicast, outputInterface: 2))], links: [eth0])
        let evaluator = ReachabilityEvaluator(
            paths: PathEvaluator(kernel: kernel, classifier: LinkClassifier(sysfs: SysfsNetDirectory(root: "/nonexistent"))),
            resolver: FakeResolver([:]))
        return WatchLoop(
            targets: targets, any: false, configuration: WatchConfiguration(), resolveInterval: .milliseconds(60_000), interface: nil,
            probing: probing, evaluator: evaluator, events: events)
    }

    // MARK: the order of the lines

    func testLinesOfALaterTargetWaitForTheFirstLinesBeforeIt() {
        var lines = WatchLineOrder(targets: 3)
        lines.show(2, event(.initial))
        lines.show(1, event(.initial))
        XCTAssertEqual(lines.take(), [], "the first target has shown nothing yet")
        lines.show(0, event(.initial, F.noRoute))
        XCTAssertEqual(lines.take().map(\.current), [F.noRoute, F.up, F.up], "released in the order given")
        XCTAssertEqual(lines.shownFirst, 3)
        lines.show(1, event(.change))
        XCTAssertEqual(lines.take().count, 1, "once every first line is out, lines go at once")
    }

    func testReleaseAtTheEndWritesWhatStillWaits() {
        var lines = WatchLineOrder(targets: 2)
        lines.show(1, event(.initial))
        lines.release()
        XCTAssertEqual(lines.take().count, 1)
        XCTAssertEqual(lines.take(), [], "taken once")
    }

    // MARK: the end of a watch over several targets

    func testUntilHoldsWhenEveryTargetOrWithAnyOneTargetSatisfiesIt() {
        for any in [false, true] {
            var state = run(targets: 2, any: any, WatchConfiguration(until: .reachable))
            let first = state.machines[0].observe(F.up, at: WatchInstant(monotonic: state.now, wall: RealtimeInstant(nanoseconds: 0)))
            for event in first { state.report(0, event) }
            XCTAssertEqual(state.severalEnd, any ? .conditionMet : nil, "any: \(any)")
            let second = state.machines[1].observe(F.up, at: WatchInstant(monotonic: state.now, wall: RealtimeInstant(nanoseconds: 0)))
            for event in second { state.report(1, event) }
            XCTAssertEqual(state.end(), .conditionMet)
        }
    }

    func testCountAddsChangesOverAllTargetsAndTimeoutCountsFromTheStart() {
        var state = run(targets: 2, WatchConfiguration(timeout: .milliseconds(2_000), count: 2))
        state.judge(event(.initial))
        state.judge(event(.change))
        XCTAssertNil(state.end())
        state.judge(event(.change))
        XCTAssertEqual(state.end(), .countReached)

        var quiet = run(targets: 2, WatchConfiguration(timeout: .milliseconds(2_000)))
        quiet.now = .ms(2_999)
        XCTAssertNil(quiet.end())
        XCTAssertEqual(quiet.waitTimeout(hosts: [false, false]), .milliseconds(1), "the timeout is the only deadline")
        quiet.now = .ms(3_000)
        XCTAssertEqual(quiet.end(), .timedOut)
    }

    func testAReaderGoneEndsOneTargetThroughItsMachineAndSeveralAtOnce() {
        var one = run(targets: 1)
        one.readerGone = true
        XCTAssertEqual(one.end(), .readerGone)
        XCTAssertEqual(one.machines[0].end, .readerGone)
        var several = run(targets: 2)
        several.lines.show(1, event(.initial))
        several.readerGone = true
        XCTAssertEqual(several.end(), .readerGone)
        XCTAssertEqual(several.lines.take(), [], "nothing more is written to a reader that left")
    }

    func testAnInterruptReleasesWhatWaits() {
        var state = run(targets: 2)
        state.lines.show(1, event(.initial))
        XCTAssertEqual(state.interrupt(), .interrupted)
        XCTAssertEqual(state.lines.take().count, 1)
    }

    func testIdleThereIsNoTimeoutAndAHostWaitsForItsLookupsPatience() {
        XCTAssertNil(run(targets: 1).waitTimeout(hosts: [false]))
        var state = run(targets: 1)
        state.schedules[0].started(at: state.now)
        XCTAssertEqual(state.waitTimeout(hosts: [true]), .milliseconds(5_000))
        XCTAssertNil(state.waitTimeout(hosts: [false]), "an address target has no lookup")
    }

    // MARK: the steps that act

    func testAtMostEightLookupsStartAtOnce() throws {
        let names = (0..<10).map { WatchTarget.host("host\($0).test", family: nil) }
        let events = ScriptedWatchEvents([])
        let watch = loop(names, events)
        var state = run(targets: names.count)
        try watch.startLookups(&state)
        XCTAssertEqual(events.lookups.count, WatchLoop.concurrentLookups)
        XCTAssertEqual(watch.statistics.lookups, 8)
        try watch.startLookups(&state)
        XCTAssertEqual(events.lookups.count, 8, "the others wait for a lookup to finish")
    }

    func testALookupThatOutlastsItsPatienceIsShownOnceAsNotResolved() throws {
        let events = ScriptedWatchEvents([])
        let watch = loop([.host("db.test", family: nil)], events)
        var state = run(targets: 1)
        try watch.startLookups(&state)
        try watch.showLostPatience(&state)
        XCTAssertEqual(state.lines.take(), [], "within its patience")
        state.now = .ms(6_000)
        try watch.showLostPatience(&state)
        let shown = state.lines.take()
        XCTAssertEqual(shown.count, 1)
        XCTAssertNotNil(shown.first?.current.resolutionFailure)
        try watch.showLostPatience(&state)
        XCTAssertEqual(state.lines.take(), [], "once")
    }

    func testAKernelChangeIsCountedAndEvaluatedAndAnEmptyDrainIsNot() throws {
        let events = ScriptedWatchEvents([])
        let watch = loop([.address(address("198.51.100.1"))], events)
        var state = run(targets: 1)
        XCTAssertNil(try watch.handle(.kernelChanged(NetlinkDrain()), &state))
        XCTAssertEqual(watch.statistics.drains, 1)
        XCTAssertEqual(watch.statistics.evaluations, 0, "a drain without a change evaluates nothing")
        XCTAssertNil(try watch.handle(.kernelChanged(.with(messages: 3)), &state))
        XCTAssertEqual(watch.statistics.messages, 3)
        XCTAssertEqual(watch.statistics.evaluations, 1)
        XCTAssertEqual(state.lines.take().map(\.kind), [.initial])
        XCTAssertEqual(try watch.handle(.interrupted, &state), .interrupted)
    }

    func testWritingToAReaderThatLeftIsRemembered() {
        let watch = loop([.address(address("198.51.100.1"))], ScriptedWatchEvents([]))
        var state = run(targets: 1)
        state.lines.show(0, event(.initial))
        var written = 0
        watch.write(&state) { _ in
            written += 1
            return false
        }
        XCTAssertEqual(written, 1)
        XCTAssertTrue(state.readerGone)
    }

    func testOneCheckRunsAtATime() throws {
        let checker = ConnectivityChecker(specs: [.icmp(host: "198.51.100.1")], timeout: .milliseconds(500), runner: NetworkProbeRunner())
        let probing = WatchProbing(checker: checker, interval: .milliseconds(60_000))
        let events = ScriptedWatchEvents([])
        let watch = loop([.address(address("198.51.100.1"))], events, probing: probing)
        var state = WatchRun(
            targets: 1, any: false, configuration: WatchConfiguration(), resolveInterval: .milliseconds(60_000),
            patience: .milliseconds(5_000), holdoff: .milliseconds(5), probing: probing, now: .ms(1_000))
        try watch.startCheck(&state)
        XCTAssertEqual(events.checks, 0, "no evaluation has found a usable route yet")
        try watch.evaluateAll(&state, afterChange: false)
        try watch.startCheck(&state)
        try watch.startCheck(&state)
        XCTAssertEqual(events.checks, 1)
        XCTAssertTrue(state.checking)
    }

    func testAdvanceReportsAChangeOnceItHasSettled() {
        let watch = loop([.address(address("198.51.100.1"))], ScriptedWatchEvents([]))
        var state = WatchRun(
            targets: 1, any: false, configuration: WatchConfiguration(settle: .milliseconds(300)), resolveInterval: .milliseconds(60_000),
            patience: .milliseconds(5_000), holdoff: .milliseconds(5), probing: nil, now: .ms(1_000))
        let wall = RealtimeInstant(nanoseconds: 0)
        _ = state.machines[0].observe(F.up, at: WatchInstant(monotonic: .ms(1_000), wall: wall))
        _ = state.machines[0].observe(F.noCarrier, at: WatchInstant(monotonic: .ms(1_100), wall: wall))
        state.now = .ms(1_399)
        watch.advance(&state)
        XCTAssertEqual(state.lines.take(), [], "held for --settle")
        state.now = .ms(1_400)
        watch.advance(&state)
        XCTAssertEqual(state.lines.take().map(\.current), [F.noCarrier])
    }

    func testAnAnswerIsTakenOnlyByTheTargetsThatAskedForIt() throws {
        let events = ScriptedWatchEvents([])
        let watch = loop([.host("db.test", family: nil), .host("other.test", family: nil)], events)
        var state = run(targets: 2)
        try watch.startLookups(&state)
        try watch.resolved(.resolved([address("198.51.100.1")]), name: "db.test", &state)
        XCTAssertNotNil(state.outcomes[0])
        XCTAssertNil(state.outcomes[1], "another name's lookup still runs")
        XCTAssertTrue(state.schedules[1].isInFlight)
        XCTAssertEqual(state.lines.take().map(\.current.isReachable), [true])
        try watch.resolved(.resolved([address("198.51.100.1")]), name: "db.test", &state)
        XCTAssertEqual(watch.statistics.evaluations, 1, "a late answer to a finished lookup is dropped")
    }
}

import XCTest
@testable import ReachCore
import ReachSystem

/// Event sources from a script: each `wait` runs the next step (which may change the fake
/// kernel) and returns what it says arrived; the clock moves by the step's delay.
final class ScriptedWatchEvents: WatchEventSource {
    struct Step {
        var delay: Int64
        var inputs: (ScriptedWatchEvents) -> [WatchInput]
    }

    var monotonic: Int64 = 10_000
    let wallOffset: Int64 = 1_700_000_000_000
    var steps: [Step]
    private(set) var timeouts: [Int32?] = []
    private(set) var lookups: [String] = []
    private(set) var checks = 0

    init(_ steps: [Step]) { self.steps = steps }

    func now() -> WatchInstant {
        WatchInstant(monotonic: .ms(monotonic), wall: RealtimeInstant(nanoseconds: (monotonic + wallOffset) * 1_000_000))
    }
    func startLookup(name: String, family: AddressFamily?) throws { lookups.append(name) }
    func startCheck(_ checker: ConnectivityChecker) throws { checks += 1 }

    func wait(timeout: TimeSpan?) throws -> [WatchInput] {
        timeouts.append(timeout?.pollTimeout)
        // A script that runs out ends the watch as Ctrl-C would, so a loop that waits
        // more often than the test expects cannot hang.
        guard !steps.isEmpty else { return [.interrupted] }
        let step = steps.removeFirst()
        monotonic += step.delay
        return step.inputs(self)
    }
}

final class WatchLoopTests: XCTestCase {
    private let eth0 = LinkFacts(
        index: 2, name: "eth0", hardwareType: .ether, flags: [.up, .running, .lowerUp], operState: .up, carrier: true)
    private let internet = ReachabilityEvaluator.internetDestination(.ipv4)
    private let change = NetlinkDrain.with(messages: 1)

    private func kernel(reachable: Bool) -> FakeKernel {
        let route = RouteAnswer(family: .ipv4, type: .unicast, outputInterface: 2)
        return FakeKernel(
            routes: [internet: reachable ? .route(route) : .rejected(.networkUnreachable)],
            links: [eth0])
    }

    private func loop(
        _ kernel: FakeKernel, _ events: ScriptedWatchEvents, target: WatchTarget? = nil,
        configuration: WatchConfiguration = WatchConfiguration(), resolver: FakeResolver = FakeResolver([:])
    ) -> WatchLoop {
        let evaluator = ReachabilityEvaluator(
            paths: PathEvaluator(kernel: kernel, classifier: LinkClassifier(sysfs: SysfsNetDirectory(root: "/nonexistent"))),
            resolver: resolver)
        return WatchLoop(
            target: target ?? .internet(families: [.ipv4]), configuration: configuration, resolveInterval: TimeSpan(milliseconds: 60_000),
            interface: nil, evaluator: evaluator, events: events)
    }

    /// Runs the watch with a reader that stays; how it ended and what it printed.
    private func run(_ watch: WatchLoop) throws -> (end: WatchEnd, emitted: [WatchEvent]) {
        var emitted: [WatchEvent] = []
        let end = try watch.run { event in
            emitted.append(event)
            return true
        }
        return (end, emitted)
    }

    func testTheStateThenOneLinePerChangeUntilInterrupted() throws {
        let kernel = kernel(reachable: true)
        let events = ScriptedWatchEvents([
            .init(delay: 1000) { _ in
                kernel.routes = self.kernel(reachable: false).routes
                return [.kernelChanged(self.change)]
            },
            .init(delay: 1000) { _ in [.kernelChanged(self.change)] },  // nothing changed: no line
            .init(delay: 1000) { _ in [.interrupted] },
        ])
        let watch = loop(kernel, events)
        let (end, emitted) = try run(watch)
        XCTAssertEqual(end, .interrupted)
        XCTAssertEqual(emitted.map(\.kind), [.initial, .change])
        XCTAssertEqual(emitted.map(\.current.isReachable), [true, false])
        XCTAssertEqual(emitted.last?.time.millisecondsSinceEpoch, 11_000 + events.wallOffset, "the change is timed when its message came")
        XCTAssertEqual(watch.statistics.drains, 2)
        XCTAssertEqual(watch.statistics.evaluations, 3)
    }

    func testIdleWaitsHaveNoTimeout() throws {
        let events = ScriptedWatchEvents([.init(delay: 60_000) { _ in [] }, .init(delay: 0) { _ in [.interrupted] }])
        _ = try loop(kernel(reachable: true), events).run { _ in true }
        XCTAssertEqual(events.timeouts, [nil, nil], "nothing to wait for but events: no timer, no wake-up")
    }

    func testAReaderThatGoesAwayEndsTheWatch() throws {
        let kernel = kernel(reachable: true)
        let events = ScriptedWatchEvents([
            .init(delay: 10) { _ in
                kernel.routes = self.kernel(reachable: false).routes
                return [.kernelChanged(self.change)]
            },
        ])
        var writes = 0
        let end = try loop(kernel, events).run { _ in
            writes += 1
            return writes < 2  // the second line finds the pipe closed
        }
        XCTAssertEqual(end, .readerGone)
        XCTAssertEqual(events.timeouts.count, 1, "ends at the write, without waiting again")
    }

    func testAHangUpSeenByTheEventsEndsTheWatch() throws {
        let events = ScriptedWatchEvents([.init(delay: 5) { _ in [.readerGone] }])
        XCTAssertEqual(try loop(kernel(reachable: true), events).run { _ in true }, .readerGone)
    }

    func testUntilReachableEndsWhenTheRouteComes() throws {
        let kernel = kernel(reachable: false)
        let events = ScriptedWatchEvents([
            .init(delay: 250) { _ in
                kernel.routes = self.kernel(reachable: true).routes
                return [.kernelChanged(self.change)]
            },
        ])
        let watch = loop(kernel, events, configuration: WatchConfiguration(until: .reachable, timeout: TimeSpan(milliseconds: 30_000)))
        let (end, emitted) = try run(watch)
        XCTAssertEqual(end, .conditionMet)
        XCTAssertEqual(events.timeouts, [30_000], "the only deadline is --timeout")
        XCTAssertEqual(emitted.map(\.current.isReachable), [false, true])
    }

    func testTimeoutPassesWhileWaiting() throws {
        let events = ScriptedWatchEvents([.init(delay: 2000) { _ in [] }])
        let configuration = WatchConfiguration(until: .reachable, timeout: TimeSpan(milliseconds: 2000))
        let watch = loop(kernel(reachable: false), events, configuration: configuration)
        XCTAssertEqual(try watch.run { _ in true }, .timedOut)
    }

    func testAHostIsEvaluatedWhenItsLookupAnswers() throws {
        let kernel = FakeKernel(
            routes: [address("198.51.100.7"): .route(RouteAnswer(family: .ipv4, type: .unicast, outputInterface: 2))], links: [eth0])
        let events = ScriptedWatchEvents([
            .init(delay: 40) { _ in [.resolved(.resolved([address("198.51.100.7")]), name: "db.test")] },
            .init(delay: 0) { _ in [.interrupted] },
        ])
        let (end, emitted) = try run(loop(kernel, events, target: .host("db.test", family: nil)))
        XCTAssertEqual(end, .interrupted)
        XCTAssertEqual(events.lookups, ["db.test"])
        XCTAssertEqual(emitted.map(\.current.isReachable), [true], "no state before the first answer")
        XCTAssertEqual(emitted.first?.current.subject, .host("db.test"))
    }

    func testAProbeThatCannotRunEndsTheWatchWithItsError() throws {
        struct NoPermission: Error {}
        let checker = ConnectivityChecker(specs: [.icmp(host: "198.51.100.1")], timeout: .milliseconds(500), runner: NetworkProbeRunner())
        let events = ScriptedWatchEvents([.init(delay: 10) { _ in [.checked(.failure(NoPermission()))] }])
        let evaluator = ReachabilityEvaluator(
            paths: PathEvaluator(
                kernel: kernel(reachable: true), classifier: LinkClassifier(sysfs: SysfsNetDirectory(root: "/nonexistent"))))
        let watch = WatchLoop(
            target: .internet(families: [.ipv4]), configuration: WatchConfiguration(), resolveInterval: TimeSpan(milliseconds: 60_000),
            interface: nil, probing: WatchProbing(checker: checker, interval: TimeSpan(milliseconds: 60_000)), evaluator: evaluator,
            events: events)
        XCTAssertThrowsError(try watch.run { _ in true }) { XCTAssertTrue($0 is NoPermission) }
        XCTAssertEqual(events.checks, 1)
    }

    // MARK: several targets

    private func several(
        _ kernel: FakeKernel, _ events: ScriptedWatchEvents, any: Bool = false, configuration: WatchConfiguration,
        targets: [WatchTarget]? = nil
    ) -> WatchLoop {
        let evaluator = ReachabilityEvaluator(
            paths: PathEvaluator(kernel: kernel, classifier: LinkClassifier(sysfs: SysfsNetDirectory(root: "/nonexistent"))),
            resolver: FakeResolver([:]))
        return WatchLoop(
            targets: targets ?? [.address(address("198.51.100.1")), .address(address("198.51.100.2")), .host("db.test", family: nil)],
            any: any, configuration: configuration, resolveInterval: TimeSpan(milliseconds: 60_000), interface: nil,
            evaluator: evaluator, events: events)
    }

    private func route(to destinations: [String]) -> [IPAddress: RouteLookupResult] {
        var routes: [IPAddress: RouteLookupResult] = [:]
        for destination in destinations {
            routes[address(destination)] = .route(RouteAnswer(family: .ipv4, type: .unicast, outputInterface: 2))
        }
        return routes
    }

    /// One stream: each target's initial state, then each change, naming its target;
    /// `--until reachable` waits for all of them.
    func testUntilWaitsForEveryTarget() throws {
        let kernel = FakeKernel(routes: route(to: ["198.51.100.1"]), links: [eth0])
        let events = ScriptedWatchEvents([
            .init(delay: 30) { _ in [.resolved(.resolved([address("198.51.100.3")]), name: "db.test")] },
            .init(delay: 100) { _ in
                kernel.routes = self.route(to: ["198.51.100.1", "198.51.100.2"])
                return [.kernelChanged(self.change)]
            },
            .init(delay: 100) { _ in
                kernel.routes = self.route(to: ["198.51.100.1", "198.51.100.2", "198.51.100.3"])
                return [.kernelChanged(self.change)]
            },
        ])
        let watch = several(kernel, events, configuration: WatchConfiguration(until: .reachable, timeout: TimeSpan(milliseconds: 30_000)))
        let (end, emitted) = try run(watch)
        XCTAssertEqual(end, .conditionMet)
        XCTAssertEqual(events.lookups, ["db.test", "db.test"], "looked up at the start, and again after a change")
        XCTAssertEqual(emitted.map(\.current.subject), [
            .address(address("198.51.100.1")), .address(address("198.51.100.2")), .host("db.test"),
            .address(address("198.51.100.2")), .host("db.test"),
        ])
        XCTAssertEqual(emitted.map(\.kind), [.initial, .initial, .initial, .change, .change])
        XCTAssertEqual(emitted.last?.current.isReachable, true)
        XCTAssertEqual(events.timeouts.first, 5000, "the first wait ends at the lookup's patience at the latest")
    }

    /// The first lines come in the order the targets were given: the addresses' wait for the
    /// name given before them to resolve, and so does a change of one of them meanwhile.
    func testFirstLinesComeInTheOrderGiven() throws {
        let kernel = FakeKernel(routes: route(to: ["198.51.100.1"]), links: [eth0])
        let events = ScriptedWatchEvents([
            .init(delay: 100) { _ in
                kernel.routes = self.route(to: ["198.51.100.1", "198.51.100.2"])
                return [.kernelChanged(self.change)]
            },
            .init(delay: 100) { _ in [.resolved(.resolved([address("198.51.100.1")]), name: "db.test")] },
            .init(delay: 100) { _ in [.interrupted] },
        ])
        let targets: [WatchTarget] = [.host("db.test", family: nil), .address(address("198.51.100.1")), .address(address("198.51.100.2"))]
        let (end, emitted) = try run(several(kernel, events, configuration: WatchConfiguration(), targets: targets))
        XCTAssertEqual(end, .interrupted)
        XCTAssertEqual(emitted.map(\.current.subject), [
            .host("db.test"), .address(address("198.51.100.1")), .address(address("198.51.100.2")), .address(address("198.51.100.2")),
        ])
        XCTAssertEqual(emitted.map(\.kind), [.initial, .initial, .initial, .change])
    }

    /// With --any, one reachable target is enough; --count counts changes over all targets;
    /// --timeout is the whole watch's.
    func testAnyCountAndTimeoutOverSeveralTargets() throws {
        let kernel = FakeKernel(routes: [:], links: [eth0])
        let becomeReachable = ScriptedWatchEvents([
            .init(delay: 100) { _ in
                kernel.routes = self.route(to: ["198.51.100.2"])
                return [.kernelChanged(self.change)]
            },
        ])
        let any = several(kernel, becomeReachable, any: true, configuration: WatchConfiguration(until: .reachable))
        XCTAssertEqual(try run(any).end, .conditionMet)

        kernel.routes = [:]
        let twoChanges = ScriptedWatchEvents([
            .init(delay: 100) { _ in
                kernel.routes = self.route(to: ["198.51.100.1", "198.51.100.2"])
                return [.kernelChanged(self.change)]
            },
        ])
        let (end, emitted) = try run(several(kernel, twoChanges, configuration: WatchConfiguration(count: 2)))
        XCTAssertEqual(end, .countReached)
        XCTAssertEqual(emitted.filter { $0.kind == .change }.count, 2)

        kernel.routes = [:]
        let quiet = ScriptedWatchEvents([.init(delay: 2000) { _ in [] }])
        let timed = several(kernel, quiet, configuration: WatchConfiguration(until: .reachable, timeout: TimeSpan(milliseconds: 2000)))
        XCTAssertEqual(try timed.run { _ in true }, .timedOut)
    }
}

extension NetlinkDrain {
    /// A drain that found `messages` messages in one datagram.
    static func with(messages: Int) -> NetlinkDrain {
        var drain = NetlinkDrain()
        drain.datagrams = 1
        drain.messages = messages
        return drain
    }
}

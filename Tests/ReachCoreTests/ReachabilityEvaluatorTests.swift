import XCTest
@testable import ReachCore
import ReachSystem

final class ReachabilityEvaluatorTests: XCTestCase {
    private let eth0 = LinkFacts(index: 2, name: "eth0", hardwareType: .ether,
                                 flags: [.up, .running, .lowerUp], operState: .up, carrier: true)

    private func route(_ family: AddressFamily) -> RouteLookupResult {
        .route(RouteAnswer(family: family, type: .unicast, outputInterface: 2))
    }

    private func evaluator(_ kernel: FakeKernel, _ resolver: FakeResolver = FakeResolver([:])) -> ReachabilityEvaluator {
        let classifier = LinkClassifier(sysfs: SysfsNetDirectory(root: "/nonexistent"))
        return ReachabilityEvaluator(paths: PathEvaluator(kernel: kernel, classifier: classifier),
                                     resolver: resolver)
    }

    // MARK: host

    func testResolvedHostIsReachableWhenAnyAddressIs() throws {
        let kernel = FakeKernel(routes: [address("198.18.0.2"): route(.ipv4)], links: [eth0])
        let resolver = FakeResolver(["db.internal": .resolved([address("2001:db8::2"), address("198.18.0.2")])])
        let report = try evaluator(kernel, resolver).evaluate(host: "db.internal", family: nil, timeout: .milliseconds(5000))
        XCTAssertEqual(report.subject, .host("db.internal"))
        XCTAssertEqual(report.paths.map(\.destination), [address("2001:db8::2"), address("198.18.0.2")], "every address, in order")
        XCTAssertEqual(report.paths.map(\.reason), [.noRoute, nil])
        XCTAssertTrue(report.isReachable)
        XCTAssertNil(report.reason)
        XCTAssertEqual(kernel.lookedUp, [address("2001:db8::2"), address("198.18.0.2")])
    }

    func testResolvedHostWithNoReachableAddress() throws {
        let kernel = FakeKernel(routes: [address("198.51.100.1"): .rejected(.hostUnreachable)])
        let resolver = FakeResolver(["far.example": .resolved([address("198.51.100.1"), address("198.51.100.2")])])
        let report = try evaluator(kernel, resolver).evaluate(host: "far.example", family: nil, timeout: .milliseconds(5000))
        XCTAssertFalse(report.isReachable)
        XCTAssertEqual(report.reason, .unreachableRoute, "the first unreachable path's reason")
    }

    func testUnresolvedHostIsNeverReachable() throws {
        let kernel = FakeKernel()
        let resolver = FakeResolver(["nowhere.invalid": .notResolved("Name or service not known")])
        let report = try evaluator(kernel, resolver).evaluate(host: "nowhere.invalid", family: nil, timeout: .milliseconds(5000))
        XCTAssertFalse(report.isReachable)
        XCTAssertEqual(report.reason, .nameNotResolved)
        XCTAssertEqual(report.resolutionFailure, "Name or service not known")
        XCTAssertEqual(report.paths, [])
        XCTAssertEqual(kernel.lookedUp, [], "nothing to look up")
    }

    func testResolverFailureIsThrown() {
        let resolver = FakeResolver(["x.example": .failed(SystemCallError("getaddrinfo", Errno(rawValue: 12)))])
        let evaluator = evaluator(FakeKernel(), resolver)
        XCTAssertThrowsError(try evaluator.evaluate(host: "x.example", family: nil, timeout: .milliseconds(1))) { error in
            XCTAssertEqual(error as? SystemCallError, SystemCallError("getaddrinfo", Errno(rawValue: 12)))
        }
    }

    func testFamilyAndTimeoutReachTheResolver() throws {
        let resolver = FakeResolver(["v6.example": .resolved([address("2001:db8::9")])])
        _ = try evaluator(FakeKernel(), resolver).evaluate(host: "v6.example", family: .ipv6, timeout: .milliseconds(1500))
        XCTAssertEqual(resolver.requests.count, 1)
        XCTAssertEqual(resolver.requests.first?.family, .ipv6)
        XCTAssertEqual(resolver.requests.first?.timeout, .milliseconds(1500))
    }

    func testKernelFailureDuringHostEvaluationIsThrown() {
        let kernel = FakeKernel(routes: [address("198.18.0.2"): .rejected(.noBufferSpace)])
        let resolver = FakeResolver(["h.example": .resolved([address("198.18.0.2")])])
        XCTAssertThrowsError(try evaluator(kernel, resolver).evaluate(host: "h.example", family: nil, timeout: .milliseconds(1)))
    }

    // MARK: address

    func testAddress() throws {
        let kernel = FakeKernel(routes: [address("198.18.0.2"): route(.ipv4)], links: [eth0])
        let report = try evaluator(kernel).evaluate(address: address("198.18.0.2"))
        XCTAssertEqual(report.subject, .address(address("198.18.0.2")))
        XCTAssertEqual(report.paths.count, 1)
        XCTAssertTrue(report.isReachable)
    }

    // MARK: the internet, per family

    private var v4Probe: IPAddress { ReachabilityEvaluator.internetDestination(.ipv4) }
    private var v6Probe: IPAddress { ReachabilityEvaluator.internetDestination(.ipv6) }

    func testInternetProbesAreGlobalUnicastNotTheZeroAddress() {
        // Linux answers 0.0.0.0 as local via lo (net/ipv4/route.c): the probe is a global address.
        XCTAssertEqual(v4Probe, address("8.8.8.8"))
        XCTAssertEqual(v6Probe, address("2001:4860:4860::8888"))
    }

    func testInternetEitherFamilyWillDo() throws {
        let kernel = FakeKernel(routes: [v4Probe: route(.ipv4)], links: [eth0]) // IPv6: no route
        let report = try evaluator(kernel).evaluateInternet(families: [])
        XCTAssertEqual(report.subject, .internet)
        XCTAssertEqual(report.paths.map(\.family), [.ipv4, .ipv6])
        XCTAssertEqual(report.paths.map(\.reason), [nil, .noRoute])
        XCTAssertTrue(report.isReachable)
        XCTAssertEqual(report.requiredFamilies, [])
    }

    /// A kernel booted with ipv6.disable=1 answers an IPv6 route lookup with EOPNOTSUPP.
    func testInternetOnAKernelWithoutIPv6() throws {
        let kernel = FakeKernel(routes: [v4Probe: route(.ipv4), v6Probe: .rejected(.operationNotSupported)], links: [eth0])
        let report = try evaluator(kernel).evaluateInternet(families: [])
        XCTAssertEqual(report.paths.map(\.reason), [nil, .noRoute])
        XCTAssertTrue(report.isReachable, "IPv4 is up: status says so rather than failing")
    }

    func testInternetNeitherFamily() throws {
        let report = try evaluator(FakeKernel()).evaluateInternet(families: [])
        XCTAssertFalse(report.isReachable)
        XCTAssertEqual(report.reason, .noRoute)
    }

    func testInternetOneFamilyOnly() throws {
        let kernel = FakeKernel(routes: [v4Probe: route(.ipv4)], links: [eth0])
        let v6 = try evaluator(kernel).evaluateInternet(families: [.ipv6])
        XCTAssertEqual(v6.paths.map(\.family), [.ipv6], "-6: IPv4 is not even evaluated")
        XCTAssertFalse(v6.isReachable)
        XCTAssertEqual(kernel.lookedUp, [v6Probe])
        let v4 = try evaluator(kernel).evaluateInternet(families: [.ipv4])
        XCTAssertEqual(v4.paths.map(\.family), [.ipv4])
        XCTAssertTrue(v4.isReachable)
    }

    func testInternetBothFamiliesRequired() throws {
        let kernel = FakeKernel(routes: [v4Probe: route(.ipv4)], links: [eth0])
        let both = try evaluator(kernel).evaluateInternet(families: [.ipv4, .ipv6])
        XCTAssertEqual(both.requiredFamilies, [.ipv4, .ipv6])
        XCTAssertFalse(both.isReachable, "-4 -6: IPv6 missing")
        XCTAssertEqual(both.reason, .noRoute)

        kernel.routes[v6Probe] = route(.ipv6)
        XCTAssertTrue(try evaluator(kernel).evaluateInternet(families: [.ipv4, .ipv6]).isReachable)
    }

    // MARK: the report alone

    func testReportWithoutPathsIsNotReachable() {
        let report = ReachabilityReport(subject: .internet, paths: [])
        XCTAssertFalse(report.isReachable)
        XCTAssertEqual(report.reason, .noRoute)
    }

    func testRequiredFamilyWithoutAnyPathIsNotReachable() {
        let path = PathReport(destination: address("198.18.0.2"), flags: [.reachable], reason: nil)
        let report = ReachabilityReport(subject: .internet, paths: [path], requiredFamilies: [.ipv4, .ipv6])
        XCTAssertFalse(report.isReachable)
    }

    func testResolutionFailureOutweighsPaths() {
        let path = PathReport(destination: address("198.18.0.2"), flags: [.reachable], reason: nil)
        let report = ReachabilityReport(subject: .host("h"), paths: [path], resolutionFailure: "timed out")
        XCTAssertFalse(report.isReachable)
        XCTAssertEqual(report.reason, .nameNotResolved)
    }

    /// Many targets: one report each, in order; each link asked about once for the whole run.
    func testManyAddressesAskForEachLinkOnce() throws {
        let kernel = CountingKernel(FakeKernel(
            routes: [address("198.18.0.2"): route(.ipv4), address("198.18.0.3"): route(.ipv4),
                     address("198.51.100.1"): .rejected(.hostUnreachable)],
            links: [eth0]))
        let targets = ["198.18.0.2", "198.51.100.1", "198.18.0.3", "198.18.0.2"].map(address)
        let reports = try evaluator(kernel.base).with(kernel: kernel).evaluate(addresses: targets)
        XCTAssertEqual(reports.map(\.subject), targets.map { .address($0) })
        XCTAssertEqual(reports.map(\.isReachable), [true, false, true, true])
        XCTAssertEqual(kernel.linkRequests, 1)
    }

    /// The services (and sysfs, beside them in the same memo) are asked once per link for the
    /// whole run, across the parts a long list is evaluated in, and the lookups go in batches
    /// that carry the selectors.
    func testLinkFactsOncePerLinkAcrossParts() throws {
        let kernel = FakeKernel(routes: [address("198.18.0.2"): route(.ipv4), address("198.18.0.3"): route(.ipv4)], links: [eth0])
        let services = FakeLinkFacts([:])
        var base = evaluator(kernel)
        base.paths.linkFacts = services
        base.paths.selectors = RouteSelectors(uid: 1000)
        let run = base.sharingLinks()
        let first = try run.evaluate(addresses: ["198.18.0.2", "198.18.0.3"].map(address))
        let second = try run.evaluate(addresses: ["198.18.0.3", "198.51.100.1"].map(address))
        XCTAssertEqual((first + second).map(\.isReachable), [true, true, true, false])
        XCTAssertEqual(services.asked, ["eth0"])
        XCTAssertEqual(kernel.batches.map(\.count), [2, 2])
        XCTAssertEqual(kernel.batches.map(\.selectors), [RouteSelectors(uid: 1000), RouteSelectors(uid: 1000)])
        // Alone, the same verdicts, and the services asked each time.
        let alone = try ["198.18.0.2", "198.18.0.3", "198.18.0.3", "198.51.100.1"].map { try base.evaluate(address: address($0)) }
        XCTAssertEqual(alone, first + second)
        XCTAssertEqual(services.asked.count, 4)
    }

    func testManyHostsInOrderWithTheirOwnFailures() throws {
        let kernel = FakeKernel(routes: [address("198.18.0.2"): route(.ipv4)], links: [eth0])
        let resolver = FakeResolver([
            "db.example": .resolved([address("198.18.0.2")]), "broken.example": .failed(SystemCallError("getaddrinfo", .outOfMemory)),
        ])
        let names = ["db.example", "nosuch.example", "broken.example"]
        let reports = try evaluator(kernel, resolver).evaluate(hosts: names, family: nil, timeout: .milliseconds(700))
        XCTAssertEqual(reports.map(\.isReachable), [true, false, false])
        XCTAssertEqual(reports[1].resolutionFailure, "Name or service not known")
        XCTAssertEqual(reports[2].resolutionFailure, "getaddrinfo: Cannot allocate memory", "a lookup that failed is that name's")
        XCTAssertEqual(resolver.requests.map(\.timeout), [TimeSpan](repeating: .milliseconds(700), count: 3))
    }
}

/// Counts the link requests that reach the kernel.
private final class CountingKernel: KernelRoutingFacts {
    let base: FakeKernel
    private(set) var linkRequests = 0
    init(_ base: FakeKernel) { self.base = base }
    func lookupRoutes(to destinations: [IPAddress], selectors: RouteSelectors) throws -> [RouteLookupResult] {
        try base.lookupRoutes(to: destinations, selectors: selectors)
    }
    func link(index: UInt32) throws -> LinkFacts? {
        linkRequests += 1
        return try base.link(index: index)
    }
}

extension ReachabilityEvaluator {
    fileprivate func with(kernel: KernelRoutingFacts) -> ReachabilityEvaluator {
        var evaluator = self
        evaluator.paths.kernel = kernel
        return evaluator
    }
}

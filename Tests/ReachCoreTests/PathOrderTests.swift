import XCTest
@testable import ReachCore
import ReachSystem

/// `status --all`'s order: rules by priority, each table once, default routes by metric, the
/// routes a lookup skips (ignore_routes_with_linkdown, dead next hops) after the others.
final class PathOrderTests: XCTestCase {
    private static let main = PolicyRule(family: .ipv4, priority: 32766, table: 254)
    private static let defaultTable = PolicyRule(family: .ipv4, priority: 32767, table: 253)

    private func route(_ link: UInt32, via gateway: String?, metric: UInt32, table: UInt32 = 254, flags: RouteFlags = []) -> TableRoute {
        TableRoute(route: RouteAnswer(family: .ipv4, type: .unicast, flags: flags, table: table, outputInterface: link,
                                      gateway: gateway.map(address)), metric: metric)
    }

    private func links(_ candidates: [PathOrder.Candidate]) -> [UInt32?] { candidates.map { $0.hop?.outputInterface } }

    func testDefaultRoutesByMetric() {
        let routes = [route(3, via: "198.18.2.1", metric: 200), route(2, via: "198.18.1.1", metric: 100)]
        let order = PathOrder.candidates(rules: [Self.defaultTable, Self.main], routes: routes) { _ in false }
        XCTAssertEqual(links(order), [2, 3])
    }

    func testOnlyDefaultRoutesOfThisFamilyCount() {
        var specific = route(2, via: "198.18.1.1", metric: 0)
        specific.destinationLength = 24
        let order = PathOrder.candidates(rules: [Self.main], routes: [specific, route(3, via: nil, metric: 5)]) { _ in false }
        XCTAssertEqual(links(order), [3])
    }

    func testALinkDownRouteGoesLastOnlyWhereItsLinkIgnoresIt() {
        let routes = [route(2, via: "198.18.1.1", metric: 100, flags: .linkDown), route(3, via: "198.18.2.1", metric: 200)]
        let kept = PathOrder.candidates(rules: [Self.main], routes: routes) { _ in false }
        XCTAssertEqual(links(kept), [2, 3], "without ignore_routes_with_linkdown the kernel still takes it")
        XCTAssertEqual(kept.map(\.skip), [nil, nil])
        let ignored = PathOrder.candidates(rules: [Self.main], routes: routes) { $0 == 2 }
        XCTAssertEqual(links(ignored), [3, 2])
        XCTAssertEqual(ignored.map(\.skip), [nil, .linkDownIgnored])
        // The dump marks such a next hop dead as well; the carrier is still the reason.
        let dumped = [route(2, via: "198.18.1.1", metric: 100, flags: [.linkDown, .dead]), route(3, via: "198.18.2.1", metric: 200)]
        XCTAssertEqual(PathOrder.candidates(rules: [Self.main], routes: dumped) { $0 == 2 }.map(\.skip), [nil, .linkDownIgnored])
    }

    func testADeadNextHopIsAlwaysPassedOver() {
        let routes = [route(2, via: "198.18.1.1", metric: 1, flags: .dead), route(3, via: "198.18.2.1", metric: 2)]
        let order = PathOrder.candidates(rules: [Self.main], routes: routes) { _ in false }
        XCTAssertEqual(links(order), [3, 2])
        XCTAssertEqual(order.last?.skip, .deadNextHop)
    }

    func testRulesByPriorityEachTableOnce() {
        var vpn = PolicyRule(family: .ipv4, priority: 100, table: 100)
        vpn.selectors = ["from 198.51.100.0/24"]
        var marked = PolicyRule(family: .ipv4, priority: 200, table: 254)
        marked.selectors = ["fwmark 0x1"]
        var suppressing = PolicyRule(family: .ipv4, priority: 50, table: 254)
        suppressing.suppressPrefixLength = 0
        let routes = [route(2, via: "198.18.1.1", metric: 100), route(9, via: nil, metric: 0, table: 100)]
        let order = PathOrder.candidates(rules: [Self.main, marked, vpn, suppressing], routes: routes) { _ in false }
        XCTAssertEqual(links(order), [9, 2])
        XCTAssertEqual(order.map(\.rule.priority), [100, 200], "main under the first rule that can reach its default route")
    }

    func testMultipathNextHopsAndRejectRoutes() {
        let multipath = TableRoute(
            route: RouteAnswer(family: .ipv4, type: .unicast, table: 254), metric: 10,
            nextHops: [
                NextHop(outputInterface: 2, gateway: address("198.18.1.1")), NextHop(outputInterface: 3, gateway: address("198.18.2.1")),
            ])
        let blackhole = TableRoute(route: RouteAnswer(family: .ipv4, type: .blackhole, table: 254), metric: 20)
        let order = PathOrder.candidates(rules: [Self.main], routes: [blackhole, multipath]) { _ in false }
        XCTAssertEqual(links(order), [2, 3, nil])
    }

    func testTheRouteInUseIsTheLookupsAnswer() {
        let routes = [route(2, via: "198.18.1.1", metric: 100), route(3, via: "198.18.2.1", metric: 200)]
        let order = PathOrder.candidates(rules: [Self.main], routes: routes) { _ in false }
        let answer = RouteAnswer(family: .ipv4, type: .unicast, table: 254, outputInterface: 3, gateway: address("198.18.2.1"))
        XCTAssertEqual(PathOrder.inUse(order, answer: .route(answer)), 1)
        XCTAssertNil(PathOrder.inUse(order, answer: .rejected(.networkUnreachable)))
    }

    /// A VPN's split routes win over the default route: the one the lookup took is listed
    /// first, with its prefix, then the default routes.
    func testASplitRouteInUseIsListedFirstWithItsPrefix() throws {
        let eth = LinkFacts(index: 2, name: "eth0", hardwareType: .ether, flags: [.up, .running, .lowerUp], operState: .up)
        let tun = LinkFacts(index: 9, name: "tun0", hardwareType: .none, flags: [.up, .running, .lowerUp, .pointToPoint],
                            operState: .unknown)
        func split(_ network: String) -> TableRoute {
            TableRoute(route: RouteAnswer(family: .ipv4, type: .unicast, table: 254, outputInterface: 9, destination: address(network)),
                       destinationLength: 1)
        }
        let reference = ReachabilityEvaluator.internetDestination(.ipv4)
        let taken = RouteAnswer(family: .ipv4, type: .unicast, table: 254, outputInterface: 9, destination: reference)
        var evaluator = PathEvaluator(kernel: FakeKernel(routes: [reference: .route(taken)], links: [eth, tun]))
        evaluator.tables = FakeTables(rules: [Self.main], routes: [
            split("0.0.0.0"), split("128.0.0.0"), route(2, via: "198.18.1.1", metric: 100),
        ])
        let paths = try evaluator.allPaths(to: reference)
        XCTAssertEqual(paths.map { $0.report.link?.name }, ["tun0", "eth0"])
        XCTAssertEqual(paths.map(\.prefix), ["0.0.0.0/1", nil])
        XCTAssertEqual(paths.map(\.inUse), [true, false])
        XCTAssertTrue(PathOrder.holds(address("128.0.0.0"), length: 1, address("203.0.113.1")))
        XCTAssertFalse(PathOrder.holds(address("128.0.0.0"), length: 1, address("8.8.8.8")))
        XCTAssertFalse(PathOrder.holds(address("128.0.0.0"), length: 40, address("8.8.8.8")), "a length past the address")
    }

    /// The evaluator over fakes: each path evaluated, the one in use first, `-I` keeps its link's.
    func testAllPathsPutTheOneInUseFirstWithVerdicts() throws {
        let up0 = LinkFacts(index: 2, name: "up0", hardwareType: .ether, flags: [.up, .running, .lowerUp], operState: .lowerLayerDown,
                            carrier: false)
        let up1 = LinkFacts(index: 3, name: "up1", hardwareType: .ether, flags: [.up, .running, .lowerUp], operState: .up, carrier: true)
        let reference = ReachabilityEvaluator.internetDestination(.ipv4)
        let inUse = RouteAnswer(family: .ipv4, type: .unicast, table: 254, outputInterface: 3, gateway: address("198.18.2.1"))
        let kernel = FakeKernel(routes: [reference: .route(inUse)], links: [up0, up1])
        var evaluator = PathEvaluator(kernel: kernel)
        evaluator.tables = FakeTables(rules: [Self.main], routes: [
            route(2, via: "198.18.1.1", metric: 100, flags: .linkDown), route(3, via: "198.18.2.1", metric: 200),
        ])
        evaluator.ignoresLinkDown = { index, _ in index == 2 }
        let paths = try evaluator.allPaths(to: reference)
        XCTAssertEqual(paths.map { $0.report.link?.name }, ["up1", "up0"])
        XCTAssertEqual(paths.map(\.inUse), [true, false])
        XCTAssertEqual(paths.map(\.report.reason), [nil, .noCarrier])
        XCTAssertEqual(paths.map(\.skip), [nil, .linkDownIgnored])
        XCTAssertEqual(paths.map(\.metric), [200, 100])
        evaluator.selectors.outputInterface = 2
        XCTAssertEqual(try evaluator.allPaths(to: reference).map { $0.report.link?.name }, ["up0"])
    }
}

/// Rules and routes from lists, as a dump would give them.
final class FakeTables: RoutingTableSource {
    var rules: [PolicyRule]
    var routes: [TableRoute]

    init(rules: [PolicyRule], routes: [TableRoute]) {
        self.rules = rules
        self.routes = routes
    }

    func rules(family: AddressFamily) throws -> [PolicyRule] { rules.filter { $0.family == family } }
    func routes(family: AddressFamily) throws -> [TableRoute] { routes.filter { $0.route.family == family } }
}

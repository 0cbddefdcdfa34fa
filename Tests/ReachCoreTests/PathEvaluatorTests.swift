import XCTest
@testable import ReachCore
import ReachSystem

final class PathEvaluatorTests: XCTestCase {
    private static let destination = address("203.0.113.7")

    private static let ethernet = LinkFacts(index: 2, name: "eth0", hardwareType: .ether,
                                            flags: [.up, .running, .lowerUp], operState: .up, carrier: true)
    private static let loopback = LinkFacts(index: 1, name: "lo", hardwareType: .loopback,
                                            flags: [.up, .running, .loopback, .lowerUp], operState: .unknown, carrier: true)
    private static let tun = LinkFacts(index: 9, name: "tun0", hardwareType: .none,
                                       flags: [.up, .running, .pointToPoint, .lowerUp], operState: .up, kind: "tun", carrier: true)
    private static let ppp = LinkFacts(index: 10, name: "ppp0", hardwareType: .ppp,
                                       flags: [.up, .running, .pointToPoint], operState: .unknown, kind: "ppp")
    private static let rmnet = LinkFacts(index: 11, name: "rmnet_data0", hardwareType: .rawIP,
                                         flags: [.up, .running, .lowerUp], operState: .up)

    private static func route(_ type: RouteType = .unicast, oif: UInt32? = 2, gateway: String? = nil,
                              flags: RouteFlags = []) -> RouteLookupResult {
        .route(RouteAnswer(family: .ipv4, type: type, flags: flags, outputInterface: oif,
                           gateway: gateway.map(address), preferredSource: address("198.18.0.1")))
    }

    private static func with(_ link: LinkFacts, flags: InterfaceFlags? = nil, operState: OperState? = nil,
                             carrier: Bool?? = nil) -> LinkFacts {
        var changed = link
        if let flags { changed.flags = flags }
        if let operState { changed.operState = operState }
        if let carrier { changed.carrier = carrier }
        return changed
    }

    struct Case {
        var name: String
        var route: RouteLookupResult
        var link: LinkFacts?
        var allowsCellular = true
        var flags: ReachabilityFlags
        var reason: UnreachableReason?
        var kind: LinkKind?
        var flagString: String?
    }

    private static let cases: [Case] = [
        Case(name: "reachable, direct", route: route(), link: ethernet,
             flags: [.reachable, .isDirect], kind: .ethernet, flagString: "-R ------d"),
        Case(name: "reachable via a gateway", route: route(gateway: "198.18.0.254"), link: ethernet,
             flags: [.reachable], kind: .ethernet, flagString: "-R -------"),
        Case(name: "local address", route: route(.local, oif: 1), link: loopback,
             flags: [.reachable, .isLocalAddress, .isDirect], kind: .loopback, flagString: "-R -----ld"),
        Case(name: "unicast over lo is local too", route: route(oif: 1), link: loopback,
             flags: [.reachable, .isLocalAddress, .isDirect], kind: .loopback),
        Case(name: "no carrier", route: route(),
             link: with(ethernet, flags: [.up], operState: .lowerLayerDown, carrier: false),
             flags: [.connectionRequired], reason: .noCarrier, kind: .ethernet, flagString: "-- c------"),
        Case(name: "carrier false alone", route: route(), link: with(ethernet, carrier: false),
             flags: [.connectionRequired], reason: .noCarrier),
        Case(name: "running but operstate down", route: route(), link: with(ethernet, operState: .down),
             flags: [.connectionRequired], reason: .noCarrier),
        Case(name: "operstate testing", route: route(), link: with(ethernet, operState: .testing),
             flags: [.connectionRequired], reason: .noCarrier),
        Case(name: "operstate unknown and running (lo, some drivers)", route: route(),
             link: with(ethernet, operState: .unknown, carrier: .some(nil)),
             flags: [.reachable, .isDirect]),
        Case(name: "admin down", route: route(), link: with(ethernet, flags: [], operState: .down, carrier: false),
             flags: [.connectionRequired], reason: .linkDown),
        Case(name: "dormant operstate", route: route(), link: with(ethernet, flags: [.up, .lowerUp], operState: .dormant),
             flags: [.connectionRequired, .interventionRequired], reason: .linkDormant, flagString: "-- c-i----"),
        Case(name: "IFF_DORMANT flag", route: route(), link: with(ethernet, flags: [.up, .running, .dormant]),
             flags: [.connectionRequired, .interventionRequired], reason: .linkDormant),
        Case(name: "point-to-point tun", route: route(oif: 9), link: tun,
             flags: [.reachable, .transientConnection], kind: .vpn, flagString: "-R -t-----"),
        Case(name: "tun with nothing attached", route: route(oif: 9),
             link: with(tun, flags: [.up, .pointToPoint], operState: .down, carrier: false),
             flags: [.connectionRequired, .transientConnection], reason: .noCarrier, kind: .vpn),
        Case(name: "tap: kind tun, but an Ethernet-framed virtual link, not a tunnel", route: route(oif: 13),
             link: LinkFacts(index: 13, name: "tap0", hardwareType: .ether, flags: [.up, .running, .lowerUp],
                             operState: .up, kind: "tun", carrier: true),
             flags: [.reachable, .isDirect], kind: .virtual, flagString: "-R ------d"),
        Case(name: "ppp", route: route(oif: 10), link: ppp,
             flags: [.reachable, .transientConnection], kind: .vpn),
        Case(name: "a tunnel kind is transient even without IFF_POINTOPOINT", route: route(oif: 12),
             link: LinkFacts(index: 12, name: "wg0", hardwareType: .none, flags: [.up, .running, .lowerUp],
                             operState: .unknown, kind: "wireguard"),
             flags: [.reachable, .transientConnection, .isDirect], kind: .vpn),
        Case(name: "cellular", route: route(oif: 11), link: rmnet,
             flags: [.reachable, .isWWAN, .transientConnection, .isDirect], kind: .cellular, flagString: "WR -t----d"),
        Case(name: "WWAN framework link (iosm: kind wwan, ARPHRD_NONE, point-to-point)", route: route(oif: 14),
             link: LinkFacts(index: 14, name: "wwan0", hardwareType: .none, flags: [.up, .running, .pointToPoint],
                             operState: .unknown, kind: "wwan"),
             flags: [.reachable, .isWWAN, .transientConnection], kind: .cellular, flagString: "WR -t-----"),
        Case(name: "cellular refused", route: route(oif: 11), link: rmnet, allowsCellular: false,
             flags: [.reachable, .isWWAN, .transientConnection, .isDirect], reason: .cellularRefused, kind: .cellular),
        Case(name: "cellular refused, no carrier: the link's reason first", route: route(oif: 11),
             link: with(rmnet, flags: [.up], operState: .lowerLayerDown), allowsCellular: false,
             flags: [.connectionRequired, .isWWAN, .transientConnection], reason: .noCarrier),
        Case(name: "refusing cellular leaves ethernet alone", route: route(), link: ethernet, allowsCellular: false,
             flags: [.reachable, .isDirect]),
        Case(name: "linkdown next hop", route: route(flags: .linkDown), link: ethernet,
             flags: [.connectionRequired], reason: .noCarrier),
        Case(name: "dead next hop", route: route(flags: .dead), link: ethernet,
             flags: [.connectionRequired], reason: .noCarrier),
        Case(name: "onlink next hop is fine", route: route(gateway: "198.18.9.1", flags: .onLink), link: ethernet,
             flags: [.reachable]),
        Case(name: "route names no link", route: route(oif: nil), link: nil,
             flags: [.connectionRequired], reason: .linkDown),
        Case(name: "the route's link is gone", route: route(oif: 77), link: nil,
             flags: [.connectionRequired], reason: .linkDown),
        Case(name: "no route", route: .rejected(.networkUnreachable), link: nil, flags: [], reason: .noRoute,
             flagString: "-- -------"),
        Case(name: "IPv6 disabled in the kernel (ipv6.disable=1)", route: .rejected(.operationNotSupported), link: nil,
             flags: [], reason: .noRoute),
        Case(name: "unreachable route", route: .rejected(.hostUnreachable), link: nil, flags: [], reason: .unreachableRoute),
        Case(name: "blackhole route", route: .rejected(.invalidArgument), link: nil, flags: [], reason: .blackholeRoute),
        Case(name: "prohibit route", route: .rejected(.permissionDenied), link: nil, flags: [], reason: .prohibitedRoute),
        Case(name: "older kernel: unreachable type", route: route(.unreachable, oif: nil), link: nil,
             flags: [], reason: .unreachableRoute),
        Case(name: "older kernel: blackhole type", route: route(.blackhole, oif: nil), link: nil,
             flags: [], reason: .blackholeRoute),
        Case(name: "older kernel: prohibit type", route: route(.prohibit, oif: nil), link: nil,
             flags: [], reason: .prohibitedRoute),
        Case(name: "throw type", route: route(.throw, oif: nil), link: nil, flags: [], reason: .noRoute),
        Case(name: "unspecified type", route: route(.unspecified), link: ethernet, flags: [], reason: .noRoute),
        Case(name: "broadcast", route: route(.broadcast), link: ethernet, flags: [.reachable, .isDirect]),
        Case(name: "multicast", route: route(.multicast), link: ethernet, flags: [.reachable, .isDirect]),
    ]

    func testTable() throws {
        for test in Self.cases {
            let kernel = FakeKernel(routes: [Self.destination: test.route], links: test.link.map { [$0] } ?? [])
            let evaluator = PathEvaluator(kernel: kernel, classifier: LinkClassifier(sysfs: SysfsNetDirectory(root: "/nonexistent")),
                                          allowsCellular: test.allowsCellular)
            let report = try evaluator.evaluate(Self.destination)
            XCTAssertEqual(report.flags.names, test.flags.names, test.name)
            XCTAssertEqual(report.reason, test.reason, test.name)
            XCTAssertEqual(report.isReachable, test.reason == nil, test.name)
            XCTAssertEqual(report.destination, Self.destination, test.name)
            if let kind = test.kind { XCTAssertEqual(report.link?.kind, kind, test.name) }
            if let flagString = test.flagString { XCTAssertEqual(report.flags.flagString, flagString, test.name) }
            XCTAssertFalse(report.flags.contains(.connectionOnTraffic), "no Linux meaning: never set")
            XCTAssertFalse(report.flags.contains(.connectionOnDemand), "no Linux meaning: never set")
        }
    }

    /// A broadcast or multicast route type is named on the path; one host's is not.
    func testDeliveryFollowsTheRouteType() throws {
        for (type, delivery) in [(RouteType.broadcast, PathDelivery.broadcast), (.multicast, .multicast), (.unicast, nil), (.local, nil)] {
            let kernel = FakeKernel(routes: [Self.destination: Self.route(type)], links: [Self.ethernet])
            XCTAssertEqual(try PathEvaluator(kernel: kernel).evaluate(Self.destination).delivery, delivery, "\(type)")
        }
    }

    func testReportCarriesThePath() throws {
        let kernel = FakeKernel(routes: [Self.destination: Self.route(gateway: "198.18.0.254")], links: [Self.ethernet])
        let report = try PathEvaluator(kernel: kernel).evaluate(Self.destination)
        XCTAssertEqual(report.link, LinkReport(name: "eth0", index: 2, kind: .ethernet, operState: .up))
        XCTAssertEqual(report.gateway, address("198.18.0.254"))
        XCTAssertEqual(report.source, address("198.18.0.1"))
        XCTAssertEqual(report.family, .ipv4)
    }

    func testRejectionReportsNoPath() throws {
        let kernel = FakeKernel(routes: [Self.destination: .rejected(.hostUnreachable)])
        let report = try PathEvaluator(kernel: kernel).evaluate(Self.destination)
        XCTAssertNil(report.link)
        XCTAssertNil(report.gateway)
        XCTAssertNil(report.source)
    }

    func testErrnoThatIsNotAVerdictIsAFailure() {
        for errno in [Errno.notPermitted, .noBufferSpace, .noDevice, Errno(rawValue: 11)] {
            let kernel = FakeKernel(routes: [Self.destination: .rejected(errno)])
            XCTAssertThrowsError(try PathEvaluator(kernel: kernel).evaluate(Self.destination)) { error in
                XCTAssertEqual(error as? NetlinkRequestError, NetlinkRequestError(request: "RTM_GETROUTE", errno: errno))
            }
        }
    }

    // MARK: Captured kernel answers, end to end through the client

    private func evaluate(_ destination: String, replies: [[[UInt8]]], allowsCellular: Bool = true) throws -> PathReport {
        var datagrams: [[UInt8]] = []
        for (request, reply) in replies.enumerated() {
            datagrams += reply.map { resequenced($0, to: UInt32(request + 1)) }
        }
        let client = RouteNetlinkClient(transport: FakeNetlinkTransport(replies: datagrams))
        let evaluator = PathEvaluator(kernel: client, classifier: LinkClassifier(sysfs: SysfsNetDirectory(root: "/nonexistent")),
                                      allowsCellular: allowsCellular)
        return try evaluator.evaluate(address(destination))
    }

    func testCapturedGatewayRoute() throws {
        let report = try evaluate("203.0.113.7", replies: [CapturedReply.routeViaGatewayInTable100, CapturedReply.linkVeth])
        XCTAssertEqual(report.flags, [.reachable])
        XCTAssertEqual(report.gateway, address("198.18.0.2"))
        XCTAssertEqual(report.link, LinkReport(name: "u0", index: 2, kind: .virtual, operState: .up))
    }

    func testCapturedDirectRoute() throws {
        let report = try evaluate("198.18.0.2", replies: [CapturedReply.routeDirectIPv4, CapturedReply.linkVeth])
        XCTAssertEqual(report.flags.flagString, "-R ------d")
        XCTAssertNil(report.reason)
    }

    func testCapturedLocalAddress() throws {
        let report = try evaluate("198.18.0.1", replies: [CapturedReply.routeLocalOwnAddress, CapturedReply.linkLoopback])
        XCTAssertEqual(report.flags.flagString, "-R -----ld")
        XCTAssertEqual(report.link?.kind, .loopback)
    }

    func testCapturedNoCarrier() throws {
        // `ip route get` answers with a route; the link says nothing can pass.
        let report = try evaluate("198.18.1.2", replies: [CapturedReply.routeNoCarrier, CapturedReply.linkVethNoCarrier])
        XCTAssertEqual(report.reason, .noCarrier)
        XCTAssertEqual(report.flags, [.connectionRequired], "IsDirect only on a usable path: -- c------")
        XCTAssertEqual(report.link?.operState, .lowerLayerDown)
    }

    func testCapturedTun() throws {
        let attached = try evaluate("198.18.5.2", replies: [CapturedReply.routePointToPointTunAttached, CapturedReply.linkTunAttached])
        XCTAssertEqual(attached.flags, [.reachable, .transientConnection], "point-to-point: not direct")
        XCTAssertEqual(attached.link?.kind, .vpn)
        let detached = try evaluate("198.18.5.2", replies: [CapturedReply.routePointToPointTun, CapturedReply.linkTunDetached])
        XCTAssertEqual(detached.reason, .noCarrier)
        XCTAssertEqual(detached.flags, [.connectionRequired, .transientConnection])
    }

    func testCapturedIPv6NextHopIsNotDirect() throws {
        let report = try evaluate("203.0.113.200", replies: [CapturedReply.routeViaIPv6NextHop, CapturedReply.linkVeth])
        XCTAssertEqual(report.flags, [.reachable])
        XCTAssertEqual(report.gateway, address("2001:db8:1::2"))
    }

    func testCapturedVerdicts() throws {
        let cases: [([[UInt8]], UnreachableReason)] = [
            (CapturedReply.errorNoRoute, .noRoute), (CapturedReply.errorThrowRoute, .noRoute),
            (CapturedReply.errorUnreachableRoute, .unreachableRoute), (CapturedReply.errorBlackholeRoute, .blackholeRoute),
            (CapturedReply.errorProhibitRoute, .prohibitedRoute), (CapturedReply.errorIPv6NoRoute, .noRoute),
            (CapturedReply.errorIPv6UnreachableRoute, .unreachableRoute),
            (CapturedReply.errorIPv6BlackholeRoute, .blackholeRoute),
            (CapturedReply.errorIPv6ProhibitRoute, .prohibitedRoute),
        ]
        for (reply, reason) in cases {
            let report = try evaluate("198.51.100.1", replies: [reply])
            XCTAssertEqual(report.reason, reason)
            XCTAssertEqual(report.flags, [])
        }
    }

    func testCapturedDormantAndAdminDownLinks() throws {
        let dormant = try evaluate("198.18.0.2", replies: [CapturedReply.routeDirectIPv4, CapturedReply.linkVethDormant])
        XCTAssertEqual(dormant.reason, .linkDormant)
        XCTAssertEqual(dormant.flags, [.connectionRequired, .interventionRequired])
        let down = try evaluate("198.18.0.2", replies: [CapturedReply.routeDirectIPv4, CapturedReply.linkVethAdminDown])
        XCTAssertEqual(down.reason, .linkDown)
    }

    func testCapturedVanishedLink() throws {
        let report = try evaluate("198.18.0.2", replies: [CapturedReply.routeDirectIPv4, CapturedReply.errorNoSuchLink])
        XCTAssertEqual(report.reason, .linkDown)
        XCTAssertEqual(report.flags, [.connectionRequired])
    }

    func testReasonsAreTheClosedList() {
        XCTAssertEqual(UnreachableReason.allCases.map(\.rawValue), [
            "no_route", "unreachable_route", "blackhole_route", "prohibited_route", "link_down",
            "no_carrier", "link_dormant", "cellular_refused", "expensive_refused", "name_not_resolved", "other_interface",
        ])
        XCTAssertEqual(UnreachableReason.cellularRefused.phrase, "cellular refused")
        XCTAssertEqual(UnreachableReason.noRoute.phrase, "no route")
    }
}

import XCTest

/// `reach addr` against each kind of route and link, inside the lab network: the verdict,
/// flags, link, gateway and source, as JSON field by field and as text.
final class RouteCaseTests: NamespaceTestCase {
    func testLoopbackIsLocal() throws {
        let net = try LabTopology(lab: lab, attachTun: false)
        let cases = [("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("198.18.0.2", "198.18.0.2"), ("2001:db8::2", "2001:db8::2")]
        for (address, source) in cases {
            let report = try reachJSON(["addr", address], in: net.client, status: 0)
            XCTAssertEqual(report.command, "addr")
            XCTAssertEqual(report.target, address)
            XCTAssertTrue(report.reachable)
            XCTAssertNil(report.reason)
            XCTAssertNil(report.resolverError)
            XCTAssertEqual(report.paths.count, 1)
            let path = try XCTUnwrap(report.paths.first)
            XCTAssertEqual(path.address, address)
            XCTAssertEqual(path.family, address.contains(":") ? "ipv6" : "ipv4")
            XCTAssertEqual(path.flags, ["Reachable", "IsLocalAddress", "IsDirect"], address)
            XCTAssertEqual(path.flagString, "-R -----ld", address)
            XCTAssertEqual(path.link?.name, "lo")
            XCTAssertEqual(path.link?.kind, "loopback")
            XCTAssertEqual(path.link?.index, 1)
            XCTAssertEqual(path.link?.operstate, "unknown") // lo never reports up
            XCTAssertNil(path.gateway)
            XCTAssertEqual(path.source, source, address)
        }
        let text = try reach(["addr", "127.0.0.1", "--flags"], in: net.client)
        XCTAssertEqual(text.status, 0)
        XCTAssertEqual(text.stdoutLines, ["127.0.0.1: reachable via loopback lo, source 127.0.0.1, flags -R -----ld"])
    }

    func testDirectlyConnectedPeerIsDirect() throws {
        let net = try LabTopology(lab: lab, attachTun: false)
        for (address, source) in [("198.18.0.1", "198.18.0.2"), ("2001:db8::1", "2001:db8::2")] {
            let path = try XCTUnwrap(try reachJSON(["addr", address], in: net.client, status: 0).paths.first)
            XCTAssertTrue(path.reachable)
            XCTAssertEqual(path.flags, ["Reachable", "IsDirect"], address)
            XCTAssertEqual(path.flagString, "-R ------d")
            let index = try linkIndex("v0", in: net.client)
            XCTAssertEqual(path.link, ReachJSON.Link(name: "v0", index: index, kind: "virtual", operstate: "up"))
            XCTAssertNil(path.gateway, "a direct path has no gateway")
            XCTAssertEqual(path.source, source)
            XCTAssertNil(path.reason)
        }
        let text = try reach(["addr", "198.18.0.1"], in: net.client)
        XCTAssertEqual(text.stdoutLines, ["198.18.0.1: reachable via virtual v0, source 198.18.0.2"])
        let flagged = try reach(["addr", "2001:db8::1", "--flags"], in: net.client)
        XCTAssertEqual(flagged.stdoutLines, ["2001:db8::1: reachable via virtual v0, source 2001:db8::2, flags -R ------d"])
        let quiet = try reach(["addr", "198.18.0.1", "-q"], in: net.client)
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stdout, "", "-q prints nothing")
    }

    func testHostBehindRouterReportsGatewayAndIsNotDirect() throws {
        let net = try LabTopology(lab: lab, attachTun: false)
        for (address, gateway, source) in [("198.18.1.2", "198.18.0.1", "198.18.0.2"), ("2001:db8:1::2", "2001:db8::1", "2001:db8::2")] {
            let path = try XCTUnwrap(try reachJSON(["addr", address], in: net.client, status: 0).paths.first)
            XCTAssertEqual(path.flags, ["Reachable"], address)
            XCTAssertEqual(path.flagString, "-R -------")
            XCTAssertEqual(path.gateway, gateway)
            XCTAssertEqual(path.source, source)
            XCTAssertEqual(path.link?.name, "v0")
            XCTAssertEqual(path.link?.kind, "virtual")
        }
        let text = try reach(["addr", "198.18.1.2", "--flags"], in: net.client)
        XCTAssertEqual(text.stdoutLines, ["198.18.1.2: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2, flags -R -------"])
    }

    func testRejectRoutesAreVerdictsForBothFamilies() throws {
        let net = try LabTopology(lab: lab, defaultRoutes: true, attachTun: false)
        for route in LabTopology.rejectRoutes {
            for address in route.destinations {
                let report = try reachJSON(["addr", address], in: net.client, status: 1)
                XCTAssertFalse(report.reachable, "\(route.type) \(address)")
                XCTAssertEqual(report.reason, route.reason, "\(route.type) \(address)")
                let path = try XCTUnwrap(report.paths.first)
                XCTAssertEqual(path.reason, route.reason, "\(route.type) \(address)")
                XCTAssertEqual(path.flags, [], "\(route.type) \(address)")
                XCTAssertEqual(path.flagString, "-- -------")
                XCTAssertNil(path.link)
                XCTAssertNil(path.gateway)
                XCTAssertNil(path.source)
                let phrase = route.reason.replacingOccurrences(of: "_", with: " ")
                let text = try reach(["addr", address], in: net.client)
                XCTAssertEqual(text.status, 1)
                XCTAssertEqual(text.stdoutLines, ["\(address): not reachable (\(phrase))"])
            }
        }
    }

    func testCarrierLostAtPeerKeepsRouteButIsNotReachable() throws {
        let net = try LabTopology(lab: lab, attachTun: false)
        for (address, source) in [("198.18.2.1", "198.18.2.2"), ("2001:db8:2::1", "2001:db8:2::2")] {
            // The kernel still answers with the route...
            let route = try net.client.exec(["ip", "route", "get", address])
            XCTAssertEqual(route.status, 0, "\(route)")
            XCTAssertTrue(route.stdout.contains("dev v2"), "\(route)")
            // ...but nothing can pass: ConnectionRequired, no carrier.
            let report = try reachJSON(["addr", address], in: net.client, status: 1)
            XCTAssertEqual(report.reason, "no_carrier")
            let path = try XCTUnwrap(report.paths.first)
            XCTAssertFalse(path.reachable)
            XCTAssertEqual(path.reason, "no_carrier")
            XCTAssertEqual(path.flags, ["ConnectionRequired"], address)
            XCTAssertEqual(path.flagString, "-- c------", address)
            XCTAssertEqual(path.link?.name, "v2")
            XCTAssertEqual(path.link?.operstate, "down")
            XCTAssertNil(path.gateway)
            XCTAssertEqual(path.source, source)
        }
        let text = try reach(["addr", "198.18.2.1", "--flags"], in: net.client)
        XCTAssertEqual(text.status, 1)
        XCTAssertEqual(text.stdoutLines, ["198.18.2.1: not reachable (no carrier on v2), flags -- c------"])
    }

    /// A link in dormant mode (802.1X / WPA supplicant not done): operstate dormant, the
    /// kernel still routes, nothing passes: ConnectionRequired and InterventionRequired.
    func testDormantLinkNeedsIntervention() throws {
        let client = try lab.namespace("client")
        let peer = try lab.namespace("peer")
        try Subprocess.check(["ip", "link", "add", "v4", "netns", client.name, "type", "veth", "peer", "name", "p4", "netns", peer.name])
        try client.ip("addr", "add", "198.18.4.2/24", "dev", "v4")
        try client.ip("link", "set", "dev", "v4", "mode", "dormant")
        try client.ip("link", "set", "v4", "up")
        try peer.ip("link", "set", "p4", "up")
        try client.waitFor(link: "v4", operstate: "DORMANT")
        XCTAssertEqual(try client.exec(["ip", "route", "get", "198.18.4.1"]).status, 0, "the kernel keeps routing")
        let report = try reachJSON(["addr", "198.18.4.1"], in: client, status: 1)
        XCTAssertEqual(report.reason, "link_dormant")
        let path = try XCTUnwrap(report.paths.first)
        XCTAssertEqual(path.flags, ["ConnectionRequired", "InterventionRequired"])
        XCTAssertEqual(path.flagString, "-- c-i----")
        XCTAssertEqual(path.link?.operstate, "dormant")
        XCTAssertEqual(try reach(["addr", "198.18.4.1"], in: client).stdoutLines, ["198.18.4.1: not reachable (link dormant on v4)"])
    }

    func testOurEndAdminDownFlushesRoutes() throws {
        let net = try LabTopology(lab: lab, attachTun: false)
        XCTAssertTrue(try reachJSON(["addr", "198.18.3.1"], in: net.client, status: 0).reachable)
        try net.client.ip("link", "set", "v3", "down")
        for address in ["198.18.3.1", "2001:db8:3::1"] {
            let route = try net.client.exec(["ip", "route", "get", address])
            XCTAssertNotEqual(route.status, 0, "routes flushed: \(route)")
            XCTAssertTrue(route.stderr.contains("Network is unreachable"), "\(route)")
            let report = try reachJSON(["addr", address], in: net.client, status: 1)
            XCTAssertEqual(report.reason, "no_route", address)
            XCTAssertEqual(report.paths.first?.flagString, "-- -------")
            XCTAssertNil(report.paths.first?.link)
        }
    }

    func testTunWithProcessAttachedIsTransientVPNAndWithoutIsNoCarrier() throws {
        let net = try LabTopology(lab: lab, attachTun: true)
        let holder = try XCTUnwrap(net.tunHolder)
        let tunIndex = try linkIndex("tun0", in: net.client)
        for address in ["198.51.100.1", "198.51.100.130", "2001:db8:5::1"] {
            let path = try XCTUnwrap(try reachJSON(["addr", address], in: net.client, status: 0).paths.first)
            XCTAssertTrue(path.reachable, address)
            XCTAssertEqual(path.flags, ["TransientConnection", "Reachable"], address)
            XCTAssertEqual(path.flagString, "-R -t-----", address)
            XCTAssertEqual(path.link, ReachJSON.Link(name: "tun0", index: tunIndex, kind: "vpn", operstate: "up"))
            XCTAssertNil(path.gateway)
        }
        XCTAssertEqual(try reach(["addr", "198.51.100.130", "--flags"], in: net.client).stdoutLines,
                       ["198.51.100.130: reachable via vpn tun0, source 198.51.100.2, flags -R -t-----"])

        // tun1 never had a process; tun0 loses its own when the holder ends.
        holder.stop()
        try net.client.waitFor(link: "tun0", operstate: "DOWN")
        for (address, link) in [("198.51.100.1", "tun0"), ("198.51.100.130", "tun0"), ("2001:db8:5::1", "tun0"),
                                ("198.51.100.5", "tun1"), ("2001:db8:6::1", "tun1")] {
            let route = try net.client.exec(["ip", "route", "get", address])
            XCTAssertEqual(route.status, 0, "the kernel keeps the route: \(route)")
            let report = try reachJSON(["addr", address], in: net.client, status: 1)
            XCTAssertEqual(report.reason, "no_carrier", address)
            let path = try XCTUnwrap(report.paths.first)
            XCTAssertEqual(path.flags, ["TransientConnection", "ConnectionRequired"], address)
            XCTAssertEqual(path.flagString, "-- ct-----", address)
            XCTAssertEqual(path.link?.name, link)
            XCTAssertEqual(path.link?.kind, "vpn")
            XCTAssertEqual(path.link?.operstate, "down")
        }
    }

    func testIPRuleSendsDestinationToAnotherTable() throws {
        let net = try LabTopology(lab: lab, attachTun: false)
        for (address, gateway) in [("198.18.9.1", "198.18.0.1"), ("2001:db8:9::1", "2001:db8::1")] {
            let path = try XCTUnwrap(try reachJSON(["addr", address], in: net.client, status: 0).paths.first)
            XCTAssertEqual(path.gateway, gateway, "table 100 decides, not main's blackhole")
            XCTAssertEqual(path.link?.name, "v0")
            XCTAssertEqual(path.flags, ["Reachable"])
        }
        try net.client.ip("rule", "del", "pref", "100")
        try net.client.ip("-6", "rule", "del", "pref", "100")
        for address in ["198.18.9.1", "2001:db8:9::1"] {
            let report = try reachJSON(["addr", address], in: net.client, status: 1)
            XCTAssertEqual(report.reason, "blackhole_route", "without the rule, main's blackhole: \(address)")
        }
    }

    func testIPv6LinkLocalWithZone() throws {
        let net = try LabTopology(lab: lab, attachTun: false)
        let routerAddress = try net.router.linkLocalAddress(of: "r0")
        let ourAddress = try net.client.linkLocalAddress(of: "v0")
        let zoned = "\(routerAddress)%v0"
        let report = try reachJSON(["addr", zoned], in: net.client, status: 0)
        XCTAssertEqual(report.target, zoned)
        let path = try XCTUnwrap(report.paths.first)
        XCTAssertEqual(path.address, zoned)
        XCTAssertEqual(path.family, "ipv6")
        XCTAssertEqual(path.flags, ["Reachable", "IsDirect"])
        XCTAssertEqual(path.link?.name, "v0")
        XCTAssertNil(path.gateway)
        XCTAssertEqual(path.source, ourAddress)
        XCTAssertEqual(try reach(["addr", zoned], in: net.client).stdoutLines,
                       ["\(zoned): reachable via virtual v0, source \(ourAddress)"])

        // The zone picks the link: the same address on v2, which has no carrier.
        let other = try reachJSON(["addr", "\(routerAddress)%v2"], in: net.client, status: 1)
        XCTAssertEqual(other.paths.first?.link?.name, "v2")
        XCTAssertEqual(other.reason, "no_carrier")
        // A zone given as an index works too.
        let index = try linkIndex("v0", in: net.client)
        let byIndex = try reachJSON(["addr", "\(routerAddress)%\(index)"], in: net.client, status: 0)
        XCTAssertEqual(byIndex.paths.first?.link?.name, "v0")
    }

    private func linkIndex(_ link: String, in namespace: Namespace) throws -> Int {
        try XCTUnwrap(try namespace.link(link)["ifindex"] as? Int)
    }
}

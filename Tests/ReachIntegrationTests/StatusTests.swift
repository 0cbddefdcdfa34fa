import XCTest

/// `reach status`: the route the kernel would pick for a global unicast address of each
/// family, with default routes present and absent, split defaults, -4 / -6.
final class StatusTests: NamespaceTestCase {
    /// `--reference ADDRESS`: "the internet" looked up where the user says, per family; the
    /// other family keeps the built-in address.
    func testReferenceAddressReplacesTheBuiltInOne() throws {
        let net = try LabTopology(lab: lab, attachTun: false)
        // No default route: the built-in 8.8.8.8 has no route, 198.18.1.2 (behind the router) has.
        try net.setDefaultRoutes(ipv4: false, ipv6: false)
        XCTAssertEqual(try reach(["status", "-4"], in: net.client).stdoutLines, ["IPv4: not reachable (no route)"])
        let referenced = try reach(["status", "--reference", "198.18.1.2"], in: net.client)
        XCTAssertEqual(referenced.status, 0, "\(referenced)")
        XCTAssertEqual(referenced.stdoutLines, ["IPv4: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2",
                                                "IPv6: not reachable (no route)"])
        let both = try reachJSON(["status", "-4", "-6", "--reference", "2001:db8:1::2", "--reference", "203.0.113.65"],
                                 in: net.client, status: 1)
        XCTAssertEqual(both.paths.map(\.address), ["203.0.113.65", "2001:db8:1::2"])
        XCTAssertEqual(both.paths.map(\.reason), ["blackhole_route", nil])

        let cases: [([String], String)] = [
            (["--reference", "198.18.1.2", "--reference", "198.18.1.3"], "the second IPv4 one"),
            (["-6", "--reference", "198.18.1.2"], "--reference 198.18.1.2 is IPv4, and only IPv6 is evaluated"),
            (["--reference", "db.example"], "invalid IP address 'db.example'"),
        ]
        for (options, says) in cases {
            let result = try ReachBinary.run(["status"] + options, in: net.client)
            XCTAssertEqual(result.status, 64, "\(options): \(result)")
            XCTAssertEqual(result.stdout, "", "\(options)")
            XCTAssertEqual(result.stderrLines.count, 1, "\(options): \(result)")
            XCTAssertTrue(result.stderr.hasPrefix("reach: ") && result.stderr.contains(says), "\(options): \(result)")
        }
    }

    func testDefaultRoutePresentAndAbsentPerFamily() throws {
        let net = try LabTopology(lab: lab, attachTun: false)
        let ipv4Line = "IPv4: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2"
        let ipv6Line = "IPv6: reachable via virtual v0, gateway 2001:db8::1, source 2001:db8::2"

        // Neither family has a default route.
        try net.setDefaultRoutes(ipv4: false, ipv6: false)
        let none = try reachJSON(["status"], in: net.client, status: 1)
        XCTAssertEqual(none.command, "status")
        XCTAssertNil(none.target)
        XCTAssertFalse(none.reachable)
        XCTAssertEqual(none.reason, "no_route")
        XCTAssertEqual(none.paths.map(\.family), ["ipv4", "ipv6"])
        XCTAssertEqual(none.paths.map(\.reason), ["no_route", "no_route"])
        XCTAssertEqual(none.paths.map(\.link), [nil, nil])
        XCTAssertEqual(try reach(["status"], in: net.client).stdoutLines,
                       ["IPv4: not reachable (no route)", "IPv6: not reachable (no route)"])
        try expectStatus(["-4"], 1, families: ["ipv4"], in: net)
        try expectStatus(["-6"], 1, families: ["ipv6"], in: net)

        // IPv4 only.
        try net.setDefaultRoutes(ipv4: true, ipv6: false)
        let ipv4 = try reachJSON(["status"], in: net.client, status: 0)
        XCTAssertTrue(ipv4.reachable)
        XCTAssertNil(ipv4.reason)
        let ipv4Path = try XCTUnwrap(ipv4.paths.first)
        XCTAssertTrue(ipv4Path.reachable)
        XCTAssertEqual(ipv4Path.flags, ["Reachable"])
        XCTAssertEqual(ipv4Path.gateway, "198.18.0.1")
        XCTAssertEqual(ipv4Path.source, "198.18.0.2")
        XCTAssertEqual(ipv4Path.link?.name, "v0")
        XCTAssertEqual(ipv4.paths.last?.reason, "no_route")
        XCTAssertEqual(try reach(["status"], in: net.client).stdoutLines, [ipv4Line, "IPv6: not reachable (no route)"])
        try expectStatus(["-4"], 0, families: ["ipv4"], in: net)
        try expectStatus(["-6"], 1, families: ["ipv6"], in: net)
        try expectStatus(["-4", "-6"], 1, families: ["ipv4", "ipv6"], in: net) // both named: both required

        // IPv6 only.
        try net.setDefaultRoutes(ipv4: false, ipv6: true)
        let ipv6 = try reachJSON(["status"], in: net.client, status: 0)
        XCTAssertEqual(ipv6.paths.first?.reason, "no_route")
        XCTAssertEqual(ipv6.paths.last?.gateway, "2001:db8::1")
        XCTAssertEqual(ipv6.paths.last?.source, "2001:db8::2")
        XCTAssertEqual(try reach(["status"], in: net.client).stdoutLines, ["IPv4: not reachable (no route)", ipv6Line])
        try expectStatus(["-4"], 1, families: ["ipv4"], in: net)
        try expectStatus(["-6"], 0, families: ["ipv6"], in: net)
        try expectStatus(["-4", "-6"], 1, families: ["ipv4", "ipv6"], in: net)

        // Both; bare `reach` runs status; -q says it by the exit status alone.
        try net.setDefaultRoutes(ipv4: true, ipv6: true)
        try expectStatus(["-4", "-6"], 0, families: ["ipv4", "ipv6"], in: net)
        let bare = try reach([], in: net.client)
        XCTAssertEqual(bare.status, 0)
        XCTAssertEqual(bare.stdoutLines, [ipv4Line, ipv6Line])
        let flagged = try reach(["status", "--flags"], in: net.client)
        XCTAssertEqual(flagged.stdoutLines, [ipv4Line + ", flags -R -------", ipv6Line + ", flags -R -------"])
        let quiet = try reach(["status", "-q"], in: net.client)
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stdout, "")
    }

    func testDefaultRouteOverLinkWithoutCarrier() throws {
        let net = try LabTopology(lab: lab, attachTun: false)
        try net.client.ip("route", "add", "default", "via", "198.18.2.1", "dev", "v2")
        let report = try reachJSON(["status", "-4"], in: net.client, status: 1)
        XCTAssertEqual(report.reason, "no_carrier")
        let path = try XCTUnwrap(report.paths.first)
        XCTAssertEqual(path.flags, ["ConnectionRequired"])
        XCTAssertEqual(path.gateway, "198.18.2.1")
        XCTAssertEqual(path.link?.name, "v2")
        XCTAssertEqual(try reach(["status", "-4"], in: net.client).stdoutLines, ["IPv4: not reachable (no carrier on v2)"])
    }

    /// VPN clients install 0.0.0.0/1 + 128.0.0.0/1 (and ::/1 + 8000::/1): more specific than
    /// the default route, so they win, and with no default route at all they still count.
    func testSplitDefaultRoutes() throws {
        let net = try LabTopology(lab: lab, attachTun: true)
        try net.setDefaultRoutes(ipv4: false, ipv6: false)
        for prefix in ["0.0.0.0/1", "128.0.0.0/1"] { try net.client.ip("route", "add", prefix, "dev", "tun0") }
        for prefix in ["::/1", "8000::/1"] { try net.client.ip("-6", "route", "add", prefix, "dev", "tun0") }
        try checkVPNStatus(in: net)

        // A default route through the router does not take over from the split routes.
        try net.setDefaultRoutes(ipv4: true, ipv6: true)
        try checkVPNStatus(in: net)

        // Split routes through a gateway work the same way.
        for prefix in ["0.0.0.0/1", "128.0.0.0/1"] { try net.client.ip("route", "replace", prefix, "via", "198.18.0.1", "dev", "v0") }
        let viaRouter = try reachJSON(["status", "-4"], in: net.client, status: 0)
        XCTAssertEqual(viaRouter.paths.first?.gateway, "198.18.0.1")
        XCTAssertEqual(viaRouter.paths.first?.link?.name, "v0")
    }

    private func checkVPNStatus(in net: LabTopology, file: StaticString = #filePath, line: UInt = #line) throws {
        let report = try reachJSON(["status"], in: net.client, status: 0, file: file, line: line)
        XCTAssertEqual(report.paths.count, 2, file: file, line: line)
        for path in report.paths {
            XCTAssertTrue(path.reachable, path.family, file: file, line: line)
            XCTAssertEqual(path.link?.name, "tun0", file: file, line: line)
            XCTAssertEqual(path.link?.kind, "vpn", file: file, line: line)
            XCTAssertEqual(path.flags, ["TransientConnection", "Reachable"], file: file, line: line)
            XCTAssertNil(path.gateway, file: file, line: line)
        }
        XCTAssertEqual(try reach(["status"], in: net.client).stdoutLines,
                       ["IPv4: reachable via vpn tun0, source 198.51.100.2", "IPv6: reachable via vpn tun0, source 2001:db8:5::2"],
                       file: file, line: line)
    }

    /// `status <options>`: exit status, and exactly the families asked for, in order.
    private func expectStatus(_ options: [String], _ status: Int32, families: [String], in net: LabTopology,
                              file: StaticString = #filePath, line: UInt = #line) throws {
        let report = try reachJSON(["status"] + options, in: net.client, status: status, file: file, line: line)
        XCTAssertEqual(report.paths.map(\.family), families, "status \(options)", file: file, line: line)
        XCTAssertEqual(report.reachable, status == 0, "status \(options)", file: file, line: line)
        let text = try reach(["status"] + options, in: net.client, file: file, line: line)
        XCTAssertEqual(text.status, status, "text and JSON agree: \(text)", file: file, line: line)
        XCTAssertEqual(text.stdoutLines.count, families.count, "one line per family: \(text)", file: file, line: line)
    }
}

import XCTest

/// `reach addr --from/--oif/--mark/--uid` beside `ip route get ... from/oif/mark/uid` on the
/// same policy-routed lab: the rules (ip-rule(8)) send each selector to a table of its own.
final class RouteSelectorTests: NamespaceTestCase {
    private var net: LabTopology!

    override func setUpWithError() throws {
        try super.setUpWithError()
        net = try LabTopology(lab: lab, attachTun: false)
        // Main has no route to 198.18.50-53.0/24: only a rule that matches leads anywhere.
        try net.client.ip("route", "add", "198.18.50.0/24", "via", "198.18.3.1", "table", "200")
        try net.client.ip("rule", "add", "from", "198.18.3.2", "lookup", "200", "pref", "200")
        try net.client.ip("route", "add", "198.18.51.0/24", "via", "198.18.0.1", "table", "201")
        try net.client.ip("rule", "add", "fwmark", "0x10", "lookup", "201", "pref", "201")
        try net.client.ip("route", "add", "198.18.52.0/24", "via", "198.18.3.1", "table", "202")
        try net.client.ip("rule", "add", "uidrange", "1000-1000", "lookup", "202", "pref", "202")
        try net.client.ip("-6", "route", "add", "2001:db8:53::/48", "via", "2001:db8:3::1", "table", "203")
        try net.client.ip("-6", "rule", "add", "from", "2001:db8:3::2", "lookup", "203", "pref", "203")
    }

    /// `ip route get`'s answer as (dev, via, src); nil for an error (no route).
    private func ipRouteGet(_ words: [String]) throws -> (dev: String?, via: String?, src: String?)? {
        let result = try net.client.exec(["ip", "route", "get"] + words)
        guard result.status == 0 else { return nil }
        let tokens = result.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        func after(_ word: String) -> String? { tokens.firstIndex(of: word).map { tokens[$0 + 1] } }
        return (after("dev"), after("via"), after("src"))
    }

    func testEachSelectorPicksTheRouteIPRouteGetPicks() throws {
        let cases: [(reach: [String], ip: [String], link: String?)] = [
            (["198.18.50.1"], ["198.18.50.1"], nil),
            (["198.18.50.1", "--from", "198.18.3.2"], ["198.18.50.1", "from", "198.18.3.2"], "v3"),
            (["198.18.51.1"], ["198.18.51.1"], nil),
            (["198.18.51.1", "--mark", "0x10"], ["198.18.51.1", "mark", "0x10"], "v0"),
            (["198.18.51.1", "--mark", "16"], ["198.18.51.1", "mark", "16"], "v0"),
            (["198.18.52.1", "--uid", "1000"], ["198.18.52.1", "uid", "1000"], "v3"),
            (["198.18.52.1", "--uid", "1001"], ["198.18.52.1", "uid", "1001"], nil),
            (["198.18.1.2", "--oif", "v3"], ["198.18.1.2", "oif", "v3"], "v3"),
            (["198.18.1.2", "--oif", "v0"], ["198.18.1.2", "oif", "v0"], "v0"),
            (["2001:db8:53::1", "--from", "2001:db8:3::2"], ["2001:db8:53::1", "from", "2001:db8:3::2"], "v3"),
            (["2001:db8:53::1"], ["2001:db8:53::1"], nil),
        ]
        for (arguments, words, link) in cases {
            let report = try reachJSON(["addr"] + arguments, in: net.client, status: link == nil ? 1 : 0)
            let path = try XCTUnwrap(report.paths.first, "\(arguments)")
            let ip = try ipRouteGet(words)
            XCTAssertEqual(path.link?.name, link, "\(arguments)")
            if let ip {
                XCTAssertEqual(path.link?.name, ip.dev, "\(arguments) beside ip route get")
                XCTAssertEqual(path.gateway, ip.via, "\(arguments) beside ip route get")
                XCTAssertEqual(path.source, ip.src, "\(arguments) beside ip route get")
            } else {
                XCTAssertEqual(path.reason, "no_route", "\(arguments): ip route get found no route")
            }
        }
        // Many targets take the selectors too, each as alone. With a source given, the kernel
        // names no preferred source (no RTA_PREFSRC), as `ip route get ... from` shows none.
        let together = try reach(["addr", "198.18.50.1", "198.18.50.2", "--from", "198.18.3.2"], in: net.client)
        XCTAssertEqual(together.stdoutLines, [
            "198.18.50.1: reachable via virtual v3, gateway 198.18.3.1",
            "198.18.50.2: reachable via virtual v3, gateway 198.18.3.1",
        ])
    }

    /// A selector that cannot be: one `reach:` line, exit 64, nothing on stdout.
    func testBadSelectorsAreUsageErrors() throws {
        let cases: [([String], String)] = [
            (["--oif", "nosuchif"], "--oif: unknown interface 'nosuchif'"),
            (["--from", "198.18.3"], "--from: invalid IP address '198.18.3'"),
            (["--from", "fe80::1%v3"], "--from: invalid IP address 'fe80::1%v3'"),
            (["--mark", "ten"], "--mark: 'ten' is not a number"),
            (["--mark", "0x100000000"], "--mark: '0x100000000' is not a number"),
            (["--uid", "-1"], "--uid: '-1' is not a number"),
            (["--from", "2001:db8:3::2"], "--from 2001:db8:3::2 is IPv6, '198.18.1.2' is IPv4"),
        ]
        for (options, says) in cases {
            let result = try ReachBinary.run(["addr", "198.18.1.2"] + options, in: net.client)
            XCTAssertEqual(result.status, 64, "\(options): \(result)")
            XCTAssertEqual(result.stdout, "", "\(options)")
            XCTAssertEqual(result.stderrLines.count, 1, "\(options): \(result)")
            XCTAssertTrue(result.stderr.hasPrefix("reach: ") && result.stderr.contains(says), "\(options): \(result)")
        }
    }
}

import Foundation
import XCTest

/// Every path out (`status --all`, `watch --all`), one link's answer (`-I`) and the connection
/// race (`host --connect`) on a host with two uplinks:
///
///     client up0 ──── a0 routerA a1 ──── fa far (203.0.113.10, 2001:db8:f::10 on lo)
///            up1 ──── b0 routerB b1 ──── fb
///            tun0 (held open): table 100's default route, for `from 198.51.100.7`
///
/// up0 198.18.10.0/24 and 2001:db8:10::/64 (default routes metric 100), up1 198.18.11.0/24
/// (metric 200, IPv4 only); ignore_routes_with_linkdown is set on the client. Setting a0 down
/// takes up0's carrier.
final class PathsTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-paths-" }
    private var client: Namespace!
    private var routerA: Namespace!
    private var far: Namespace!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let client = try lab.namespace("client")
        let routerA = try lab.namespace("routerA")
        let routerB = try lab.namespace("routerB")
        let far = try lab.namespace("far")
        (self.client, self.routerA, self.far) = (client, routerA, far)
        try lab.veth("up0", in: client, peer: "a0", in: routerA)
        try lab.veth("up1", in: client, peer: "b0", in: routerB)
        try lab.veth("a1", in: routerA, peer: "fa", in: far)
        try lab.veth("b1", in: routerB, peer: "fb", in: far)
        for (namespace, words) in [
            (client, "addr add 198.18.10.2/24 dev up0"), (client, "addr add 2001:db8:10::2/64 dev up0"),
            (client, "addr add 198.18.11.2/24 dev up1"),
            (routerA, "addr add 198.18.10.1/24 dev a0"), (routerA, "addr add 2001:db8:10::1/64 dev a0"),
            (routerA, "addr add 198.18.12.1/24 dev a1"), (routerA, "addr add 2001:db8:12::1/64 dev a1"),
            (routerB, "addr add 198.18.11.1/24 dev b0"), (routerB, "addr add 198.18.13.1/24 dev b1"),
            (far, "addr add 198.18.12.2/24 dev fa"), (far, "addr add 2001:db8:12::2/64 dev fa"),
            (far, "addr add 198.18.13.2/24 dev fb"), (far, "addr add 203.0.113.10/32 dev lo"), (far, "addr add 2001:db8:f::10/128 dev lo"),
            (routerA, "route add 203.0.113.10/32 via 198.18.12.2"), (routerA, "-6 route add 2001:db8:f::10/128 via 2001:db8:12::2"),
            (routerB, "route add 203.0.113.10/32 via 198.18.13.2"),
            (far, "route add 198.18.10.0/24 via 198.18.12.1"), (far, "-6 route add 2001:db8:10::/64 via 2001:db8:12::1"),
            (far, "route add 198.18.11.0/24 via 198.18.13.1"),
            (client, "route add default via 198.18.10.1 dev up0 metric 100"),
            (client, "route add default via 198.18.11.1 dev up1 metric 200"),
            (client, "-6 route add default via 2001:db8:10::1 dev up0 metric 100"),
        ] {
            try namespace.ip(words: words)
        }
        // A VPN-like link: a tun device held open, whose table a policy rule selects.
        try client.ip(words: "tuntap add dev tun0 mode tun")
        try client.ip(words: "addr add 198.51.100.7/32 dev tun0")
        try client.ip(words: "link set tun0 up")
        _ = try lab.attachTun("tun0", in: client)
        try client.ip(words: "route add default dev tun0 table 100")
        try client.ip(words: "rule add from 198.51.100.7 lookup 100 pref 100")
        try client.sysctl(["net.ipv4.conf.all.ignore_routes_with_linkdown=1", "net.ipv6.conf.all.ignore_routes_with_linkdown=1"])
        try client.waitForPingReplies(from: ["203.0.113.10", "2001:db8:f::10"], what: "the far end")
    }

    private func allPaths(_ arguments: [String] = []) throws -> [[String: Any]] {
        let result = try reach(["status", "--all", "--json"] + arguments, in: client)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        return try XCTUnwrap(object["all_paths"] as? [[String: Any]], result.stdout)
    }

    private func summary(_ path: [String: Any]) -> String {
        let link = (path["link"] as? [String: Any])?["name"] as? String ?? "-"
        let gateway = path["gateway"] as? String ?? "-"
        return "\(path["family"] as? String ?? "?") \(link) \(gateway) \(path["metric"] as? Int ?? -1) \(path["table"] as? Int ?? -1)"
    }

    /// The default routes of `ip -j route show table all`: family, dev, gateway, metric, table.
    private func ipDefaultRoutes() throws -> Set<String> {
        var routes: Set<String> = []
        for (family, flag) in [("ipv4", "-4"), ("ipv6", "-6")] {
            let result = try Subprocess.check(["ip", "-n", client.name, "-j", flag, "route", "show", "table", "all"])
            let decoded = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [[String: Any]])
            for route in decoded where route["dst"] as? String == "default" && route["type"] == nil {
                let table: Int = switch route["table"] as? String {
                case nil, "main"?: 254
                case let number?: Int(number) ?? -1
                }
                let metric = route["metric"] as? Int ?? 0
                routes.insert("\(family) \(route["dev"] as? String ?? "-") \(route["gateway"] as? String ?? "-") \(metric) \(table)")
            }
        }
        return routes
    }

    func testStatusAllListsEveryPathInTheKernelsOrderBesideIpRoute() throws {
        let paths = try allPaths()
        XCTAssertEqual(paths.map(summary), [
            "ipv4 up0 198.18.10.1 100 254", "ipv4 tun0 - 0 100", "ipv4 up1 198.18.11.1 200 254", "ipv6 up0 2001:db8:10::1 100 254",
        ], "the one in use first, then rule 100's table, then main's by metric")
        XCTAssertEqual(Set(paths.map(summary)), try ipDefaultRoutes())
        guard paths.count == 4 else { return }
        XCTAssertEqual(paths.map { $0["in_use"] as? Bool }, [true, false, false, true])
        XCTAssertEqual(paths.map { $0["reachable"] as? Bool }, [true, true, true, true])
        XCTAssertEqual(paths[1]["rule_priority"] as? Int, 100)
        XCTAssertEqual(paths[1]["rule_selector"] as? String, "from 198.51.100.7")
        let rules = try Subprocess.check(["ip", "-n", client.name, "rule", "show"]).stdout
        XCTAssertTrue(rules.contains("100:\tfrom 198.51.100.7 lookup 100"), rules)
        XCTAssertEqual(((paths[1]["link"] as? [String: Any])?["kind"] as? String), "vpn")

        let text = try reach(["status", "--all"], in: client)
        XCTAssertEqual(text.status, 0)
        XCTAssertEqual(text.stdoutLines.filter { $0.hasPrefix("  ") }, [
            "  1. up0 (virtual, up), gateway 198.18.10.1, metric 100, table main: reachable, in use",
            "  2. tun0 (vpn, up), metric 0, table 100, rule 100 from 198.51.100.7: reachable",
            "  3. up1 (virtual, up), gateway 198.18.11.1, metric 200, table main: reachable",
            "  1. up0 (virtual, up), gateway 2001:db8:10::1, metric 100, table main: reachable, in use",
        ])
    }

    /// Carrier loss on the first uplink: the kernel passes over its route
    /// (ignore_routes_with_linkdown), the second moves to the front, and `watch --all` says so.
    func testCarrierLossMovesTheSecondUplinkToTheFrontAndWatchAllPrintsIt() throws {
        let watch = try WatchProcess(in: client, arguments: ["--all"])
        let json = try WatchProcess(in: client, arguments: ["--all", "--json"])
        defer {
            watch.signal(SIGTERM)
            json.signal(SIGTERM)
        }
        XCTAssertNotNil(watch.waitForLine(timeout: 10) { $0.text.contains("IPv6 path: 1. up0") }.line, "\(watch.lines.map(\.text))")
        XCTAssertNotNil(json.waitForLine(timeout: 10) { $0.text.contains("\"initial\"") }.line)
        let start = watch.lines.count
        try routerA.ip(words: "link set a0 down")
        try client.waitFor(link: "up0", operstate: "DOWN")

        let moved = watch.waitForLine(after: start, timeout: 10) { $0.text.contains("IPv4 path: 1. up1") }
        XCTAssertNotNil(moved.line, "\(moved.lines.map(\.text))")
        XCTAssertTrue(moved.line?.text.contains("reachable, in use   was: 3. up1") == true, moved.line?.text ?? "")
        let passed = watch.waitForLine(after: start, timeout: 10) { $0.text.contains("IPv4 path: 3. up0") }
        XCTAssertTrue(passed.line?.text.contains("not reachable (no carrier), passed over (ignore_routes_with_linkdown)") == true,
                      "\(passed.lines.map(\.text))")
        XCTAssertNotNil(watch.waitForLine(after: start, timeout: 10) { $0.text.contains("IPv4: reachable via virtual up1") }.line)

        let change = json.waitForLine(timeout: 10) { $0.text.contains("\"change\"") && $0.text.contains("\"link\":\"up1\"") }
        let event = try XCTUnwrap(change.line.flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.text.utf8)) as? [String: Any]
        }, "\(change.lines.map(\.text))")
        let changes = try XCTUnwrap(event["path_changes"] as? [[String: Any]])
        let up1 = try XCTUnwrap(changes.first { $0["link"] as? String == "up1" && $0["family"] as? String == "ipv4" })
        XCTAssertEqual(Set(up1["changed"] as? [String] ?? []), ["rank", "in_use"])

        let paths = try allPaths()
        XCTAssertEqual(paths.map(summary).prefix(3), ["ipv4 up1 198.18.11.1 200 254", "ipv4 tun0 - 0 100", "ipv4 up0 198.18.10.1 100 254"])
        guard paths.count >= 3 else { return }
        XCTAssertEqual(paths[2]["skipped"] as? String, "linkdown_ignored")
        XCTAssertEqual(paths[2]["reason"] as? String, "no_carrier")
    }

    func testInterfaceOptionAnswersPerLink() throws {
        for link in ["up0", "up1"] {
            let ip = try Subprocess.check(["ip", "-n", client.name, "-j", "route", "get", "8.8.8.8", "oif", link]).stdout
            let expected = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(ip.utf8)) as? [[String: Any]]).first
            let status = try reachJSON(["status", "-4", "-I", link], in: client, status: 0)
            XCTAssertEqual(status.paths.first?.link?.name, link)
            XCTAssertEqual(status.paths.first?.gateway, expected?["gateway"] as? String)
            let addr = try reachJSON(["addr", "-I", link, "203.0.113.10"], in: client, status: 0)
            XCTAssertEqual(addr.paths.first?.link?.name, link)
            XCTAssertEqual(try allPaths(["-I", link]).compactMap { ($0["link"] as? [String: Any])?["name"] as? String },
                           link == "up0" ? ["up0", "up0"] : ["up1"])
        }
        _ = try client.etcFile("hosts", "127.0.0.1 localhost\n203.0.113.10 far.reach.test\n")
        let host = try reachJSON(["host", "-I", "up1", "far.reach.test"], in: client, status: 0)
        XCTAssertEqual(host.paths.first?.link?.name, "up1")
        let text = try reach(["host", "-I", "up1", "far.reach.test", "--json"], in: client).stdout
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(object["first_address"] as? String, "203.0.113.10")
    }

    func testBadInterfaceIsAUsageErrorUnlessWatchWaitsForIt() throws {
        for words in [["status", "-I", "nosuch0"], ["host", "-I", "nosuch0", "localhost"], ["addr", "-I", "nosuch0", "198.18.10.1"],
                      ["watch", "-I", "nosuch0"], ["status", "-I", "bad/name"]] {
            let result = try ReachBinary.run(words, in: client)
            XCTAssertEqual(result.status, 64, "\(words): \(result)")
            XCTAssertEqual(result.stdout, "", "\(words)")
            XCTAssertEqual(result.stderrLines.count, 1, "\(words): \(result)")
            XCTAssertTrue(result.stderr.hasPrefix("reach: ") && result.stderr.contains("-I"), "\(words): \(result)")
        }
        // With --until, the link may come later: the watch waits, and ends with its timeout.
        let waiting = try ReachBinary.run(["watch", "-I", "nosuch0", "--until", "reachable", "--timeout", "1"], in: client)
        XCTAssertEqual(waiting.status, 1, "\(waiting)")
        XCTAssertTrue(waiting.stdout.contains("not reachable (link down)"), waiting.stdout)
    }

    /// `watch -I` with `--until`: the link that is not there yet is waited for, and a path
    /// through it ends the wait once it comes: as soon as it has carrier, since the kernel
    /// answers a lookup through a link without a route as directly connected.
    func testWatchUntilWaitsForTheLinkToAppear() throws {
        let watch = try WatchProcess(in: client, arguments: ["-4", "-I", "late0", "--until", "reachable", "--timeout", "60"])
        defer { watch.signal(SIGTERM) }
        let first = watch.waitForLine(timeout: 10) { $0.text.contains("IPv4: not reachable (link down)") }
        XCTAssertNotNil(first.line, "\(first.lines.map(\.text))")
        try lab.veth("late0", in: client, peer: "late1", in: routerA)
        XCTAssertEqual(watch.waitForExit(timeout: 20), 0, "\(watch.lines.map(\.text))")
        XCTAssertTrue(watch.lines.last?.text.contains("IPv4: reachable via virtual late0") == true, "\(watch.lines.map(\.text))")
    }

    /// `host --connect`: the address getaddrinfo puts first (IPv6 here, RFC 6724) is tried first;
    /// with its port closed the IPv4 attempt starts at once, with it black-holed after 250 ms.
    func testHostConnectRacesTheFamilies() throws {
        _ = try client.etcFile("hosts", "127.0.0.1 localhost\n2001:db8:f::10 far.reach.test\n203.0.113.10 far.reach.test\n")
        for (address, port) in [("203.0.113.10", "8080"), ("203.0.113.10", "8081"), ("2001:db8:f::10", "8081"),
                                ("203.0.113.10", "8082"), ("2001:db8:f::10", "8082")] {
            let server = try lab.launchHelper("line-server.py", [address, port, "banner"], in: far, label: "listen-\(address)-\(port)")
            try server.waitUntilReady(marker: "listening")
        }
        try lab.nft(in: far, name: "blackhole", """
            table inet blackhole {
                chain input { type filter hook input priority 0; meta nfproto ipv6 tcp dport 8081 drop; }
            }
            """)
        let first = try Subprocess.check(["ip", "netns", "exec", client.name, "getent", "ahosts", "far.reach.test"]).stdoutLines.first
        XCTAssertEqual(first?.split(separator: " ").first.map(String.init), "2001:db8:f::10")

        let both = try race(port: 8082)
        XCTAssertEqual(both["first_address"] as? String, "2001:db8:f::10")
        if both["winner"] as? String != "2001:db8:f::10" {
            // Only a first attempt slower than the Connection Attempt Delay lets IPv4 start, and maybe win.
            XCTAssertGreaterThanOrEqual(try startOfIPv4(both), 250, "\(both)")
        }

        let closed = try race(port: 8080)
        XCTAssertEqual(closed["winner"] as? String, "203.0.113.10")
        XCTAssertEqual(results(closed), ["ipv6": "refused", "ipv4": "connected"])
        // A refusal starts the next attempt at once, not after the rest of the delay.
        let refused = try XCTUnwrap((closed["attempts"] as? [[String: Any]])?.first?["time_ms"] as? Double)
        XCTAssertLessThan(try startOfIPv4(closed), refused + 100, "\(closed)")

        let blackholed = try race(port: 8081)
        XCTAssertEqual(blackholed["winner"] as? String, "203.0.113.10")
        XCTAssertEqual(results(blackholed), ["ipv6": "cancelled", "ipv4": "connected"])
        XCTAssertGreaterThanOrEqual(try startOfIPv4(blackholed), 250, "the Connection Attempt Delay")

        let text = try reach(["host", "far.reach.test", "--connect", "8081"], in: client)
        XCTAssertTrue(text.stdoutLines.contains("tried first: 2001:db8:f::10 (getaddrinfo's order, RFC 6724)"), text.stdout)
        XCTAssertTrue(text.stdoutLines.contains { $0.hasPrefix("connect to port 8081: 203.0.113.10 won in ") }, text.stdout)
        XCTAssertTrue(text.stdoutLines.contains { $0.hasPrefix("  IPv6 2001:db8:f::10: no answer, cancelled after ") }, text.stdout)
    }

    private func race(port: Int) throws -> [String: Any] {
        let result = try reach(["host", "far.reach.test", "--connect", "\(port)", "--json"], in: client)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        return try XCTUnwrap(object["connect"] as? [String: Any], result.stdout)
    }

    private func results(_ race: [String: Any]) -> [String: String] {
        var results: [String: String] = [:]
        for family in race["families"] as? [[String: Any]] ?? [] {
            results[family["family"] as? String ?? "?"] = family["result"] as? String
        }
        return results
    }

    private func startOfIPv4(_ race: [String: Any]) throws -> Double {
        let attempts = race["attempts"] as? [[String: Any]] ?? []
        return try XCTUnwrap(attempts.first { ($0["address"] as? String)?.contains(".") == true }?["started_ms"] as? Double)
    }
}

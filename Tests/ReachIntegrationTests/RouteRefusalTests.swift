import Foundation
import XCTest

/// The kernel's refusals of a destination (`ip route add blackhole|unreachable|prohibit`,
/// both families) are the target's verdict in `ping`, `ping A B`, the probes of `status`,
/// never a system failure: each send is an error naming the route type, exit 1.
///
/// ```
///  ChainTopology (client, router, far: 198.18.1.2 answers), and in the client
///  blackhole 203.0.113.0/24, 2001:db8:b::/48; unreachable 198.51.100.0/25, 2001:db8:c::/48;
///  prohibit 198.51.100.128/25, 2001:db8:d::/48
/// ```
final class RouteRefusalTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-refuse-" }
    private var client: Namespace!

    /// A refused destination of each route type and family, and the words reach adds to strerror's.
    static let refused: [(address: String, words: String)] = [
        ("203.0.113.5", "Invalid argument (blackhole route)"), ("2001:db8:b::5", "Invalid argument (blackhole route)"),
        ("198.51.100.5", "No route to host (unreachable route)"), ("2001:db8:c::5", "No route to host (unreachable route)"),
        ("198.51.100.130", "Permission denied (prohibited route)"), ("2001:db8:d::5", "Permission denied (prohibited route)"),
    ]

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["ip", "nft", "fping"])
        let net = try ChainTopology(lab: lab)
        client = net.client
        for (type, v4, v6) in [
            ("blackhole", "203.0.113.0/24", "2001:db8:b::/48"), ("unreachable", "198.51.100.0/25", "2001:db8:c::/48"),
            ("prohibit", "198.51.100.128/25", "2001:db8:d::/48"),
        ] {
            try client.ip("route", "add", type, v4)
            try client.ip("-6", "route", "add", type, v6)
        }
    }

    /// One target: a line per probe naming the route type, iputils' statistics with the
    /// errors counted, exit 1, from a raw socket and from a datagram one. (iputils stops at
    /// its connect with exit 2 and no statistics.)
    func testPingCountsEachRefusalAsAnErrorNamingTheRoute() throws {
        for socket in ["raw", "datagram"] {
            if socket == "datagram" { try client.sysctl(["net.ipv4.ping_group_range=0 2147483647"]) }
            for (address, words) in Self.refused {
                let result = try ReachBinary.run(["ping", "-c", "2", "-i", "0.1", address], in: client)
                XCTAssertEqual(result.status, 1, "\(socket) \(address): \(result)")
                XCTAssertEqual(
                    result.stderrLines, ["reach: icmp_seq=1: sendto: \(words)", "reach: icmp_seq=2: sendto: \(words)"],
                    "\(socket) \(address)")
                XCTAssertTrue(
                    result.stdout.contains("2 packets transmitted, 0 received, +2 errors, 100% packet loss"), "\(socket): \(result)")
            }
            let json = try ReachBinary.run(["ping", "--json", "-c", "1", "203.0.113.5"], in: client)
            XCTAssertEqual(json.status, 1, "\(json)")
            let failed = try XCTUnwrap(Self.objects(json.stdout).first { $0["event"] as? String == "send_failed" }, "\(json)")
            XCTAssertEqual(failed["reason"] as? String, "blackhole_route")
            XCTAssertEqual(failed["error"] as? String, "Invalid argument")
        }
    }

    /// Many targets, beside fping: the refused ones are unreachable, the answering one is
    /// alive, the same lines on stdout and the same exit status (1); fping's stderr lines
    /// are reach's, which add the route type.
    func testManyTargetsCarryOnBesideFping() throws {
        let targets = Self.refused.map(\.address) + ["198.18.1.2"]
        let reach = try ReachBinary.run(["ping"] + targets, in: client)
        let fping = try client.exec(["fping"] + targets)
        XCTAssertEqual(reach.status, 1, "\(reach)")
        XCTAssertEqual(reach.status, fping.status, "\(fping)")
        XCTAssertEqual(reach.stdoutLines, fping.stdoutLines)
        XCTAssertEqual(reach.stdoutLines.first, "198.18.1.2 is alive")
        XCTAssertEqual(reach.stderrLines.count, fping.stderrLines.count, "\(reach)\n\(fping)")
        for (ours, theirs) in zip(reach.stderrLines.sorted(), fping.stderrLines.sorted()) {
            XCTAssertTrue(ours.hasPrefix(theirs), "\(ours) / \(theirs)")
        }
        for (address, words) in Self.refused {
            XCTAssertTrue(reach.stderrLines.contains("\(address): error while sending ping: \(words)"), "\(reach)")
        }
        // -u prints only the unreachable names, -a only the alive one, with no error lines (fping's verbose_flag).
        for option in ["--unreachable", "--alive"] {
            let ours = try ReachBinary.run(["ping", option] + targets, in: client)
            let theirs = try client.exec(["fping", option == "--alive" ? "-a" : "-u"] + targets)
            XCTAssertEqual(ours.status, theirs.status, option)
            XCTAssertEqual(ours.stdoutLines, theirs.stdoutLines, option)
            XCTAssertEqual(ours.stderr, "", option)
        }
        let counted = try ReachBinary.run(["ping", "-c", "2", "-q", "-i", "0.01", "--period", "0.1"] + targets, in: client)
        XCTAssertEqual(counted.status, 1, "\(counted)")
        XCTAssertTrue(counted.stderrLines.contains { $0.hasPrefix("203.0.113.5    : xmt/rcv/%loss = 2/0/100%") }, "\(counted)")
        XCTAssertTrue(counted.stderrLines.contains { $0.hasPrefix("198.18.1.2     : xmt/rcv/%loss = 2/2/0%") }, "\(counted)")
    }

    /// A refused probe fails naming the route type: connectivity limited, exit 1, not 71.
    func testProbesFailNamingTheRoute() throws {
        for spec in ["icmp:203.0.113.5", "icmp:[2001:db8:b::5]", "tcp:203.0.113.5:80", "tcp:[2001:db8:d::5]:80",
                     "http://198.51.100.5/", "http://[2001:db8:c::5]/"]
        {
            let result = try ReachBinary.run(["status", "--probe", spec, "--probe-timeout", "2s"], in: client)
            XCTAssertEqual(result.status, 1, "\(spec): \(result)")
            XCTAssertEqual(result.stderr, "", spec)
            let words = spec.contains("203.0.113") || spec.contains(":b::") ? "blackhole route"
                : spec.contains(":d::") ? "prohibited route" : "unreachable route"
            XCTAssertTrue(result.stdout.contains("connectivity: limited"), "\(spec): \(result)")
            // The line names the probe as reach prints it (icmp: without brackets) and its family.
            let shown = spec.hasPrefix("icmp:[") ? "icmp:" + spec.dropFirst("icmp:[".count).dropLast() : spec
            let family = spec.contains("2001:db8") ? "IPv6" : "IPv4"
            XCTAssertTrue(
                result.stdoutLines.contains { $0.hasPrefix("  \(shown) (\(family)): fail, ") && $0.contains("(\(words))") },
                "\(spec): \(result)")
        }
    }

    /// An on-link IPv6 address no neighbour answers: only "Address unreachable" comes back,
    /// 3 s after each probe. iputils counts no ICMPv6 error in its "pipe", so its statistics
    /// end without one, and reach's the same, line for line but for the time.
    func testUnansweredNeighbourStatisticsMatchIputilsWithoutPipe() throws {
        let arguments = ["-c", "2", "-W", "4", "2001:db8::99"]
        let ours = try ReachBinary.run(["ping"] + arguments, in: client)
        let theirs = try client.exec(["ping"] + arguments)
        XCTAssertEqual(ours.status, theirs.status, "\(ours)\n\(theirs)")
        let statistics = { (lines: [String]) in
            lines.drop { !$0.hasPrefix("--- ") }
                .map { $0.replacingOccurrences(of: #"time \d+ms"#, with: "time", options: .regularExpression) }
        }
        XCTAssertEqual(statistics(ours.stdoutLines), statistics(theirs.stdoutLines), "\(ours)\n\(theirs)")
        XCTAssertFalse(ours.stdout.contains("pipe"), "\(ours)")
    }

    /// `ping --json` has one shape for one target and for many: each probe's event names its
    /// target, address, `seq` and `index` with the same keys; one target's reply adds what only
    /// iputils' model tells (late, corrupted, different_address); loss_percent is a number in
    /// both; a name that does not resolve is the same `unresolved` event.
    func testPingJSONHasOneShapeForOneTargetAndMany() throws {
        try client.useResolver(["127.0.0.1"], options: "options timeout:1 attempts:1")
        func keys(_ arguments: [String], _ event: String) throws -> Set<String> {
            let result = try ReachBinary.run(["ping", "--json", "-c", "1", "-W", "1"] + arguments, in: client)
            let object = try XCTUnwrap(Self.objects(result.stdout).first { $0["event"] as? String == event }, "\(event): \(result)")
            if event == "summary" { XCTAssertNotNil(object["loss_percent"] as? Double, "\(object)") }
            return Set(object.keys)
        }
        let many = ["198.18.1.3", "203.0.113.5"]
        let probe: Set<String> = ["schema", "command", "event", "target", "address", "seq", "index"]
        let reply = probe.union(["from", "ttl", "bytes", "rtt_ms", "duplicate"])
        XCTAssertEqual(try keys(["198.18.1.2"] + many, "reply"), reply)
        XCTAssertEqual(try keys(["198.18.1.2"], "reply"), reply.union(["late", "corrupted", "different_address"]))
        XCTAssertEqual(try keys(["198.18.1.3"], "timeout"), probe)
        XCTAssertEqual(try keys(["198.18.1.2"] + many, "timeout"), probe)
        let refused = probe.union(["errno", "error", "reason"])
        XCTAssertEqual(try keys(["203.0.113.5"], "send_failed"), refused)
        XCTAssertEqual(try keys(["198.18.1.2"] + many, "send_failed"), refused)
        let unresolved: Set<String> = ["schema", "command", "event", "target", "error"]
        XCTAssertEqual(try keys(["no-such-host.invalid"], "unresolved"), unresolved)
        XCTAssertEqual(try keys(["no-such-host.invalid"] + many, "unresolved"), unresolved)
        _ = try keys(["198.18.1.2"], "summary")
        _ = try keys(["198.18.1.2"] + many, "summary")
    }

    /// watch --probe: the refused probe makes the state limited, naming the route, and the
    /// watch goes on to its timeout (exit 0, not 71).
    func testWatchProbeIsLimitedNamingTheRoute() throws {
        let result = try ReachBinary.run(
            ["watch", "--probe", "icmp:203.0.113.5", "--probe-timeout", "1s", "--timeout", "3s"], in: client)
        XCTAssertEqual(result.status, 0, "\(result)")
        XCTAssertEqual(result.stderr, "")
        XCTAssertTrue(
            result.stdoutLines.contains { $0.hasSuffix("  connectivity: limited (203.0.113.5: Invalid argument (blackhole route))") },
            "\(result)")
    }

    static func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}

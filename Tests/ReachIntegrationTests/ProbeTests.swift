#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// `reach status --probe` for real: host, router and "internet" namespaces, an HTTP server
/// and the ICMP and TCP targets in the internet, a captive portal in the router. Traffic
/// never leaves the namespaces.
final class ProbeTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-probe-" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["ping", "nft", "setpriv"])
    }

    static let timeout = 1.0
    static let timeoutArguments = ["--probe-timeout", "1s"]

    /// Every form, both families: what the full case sends.
    static let everyForm = [
        "icmp:198.51.100.2", "icmp:2001:db8:1::2",
        "tcp:198.51.100.2:443", "tcp:[2001:db8:1::2]:443",
        "http://198.51.100.2/generate_204", "http://[2001:db8:1::2]:8000/ok",
    ]

    static func probing(_ specs: [String]) -> [String] {
        ["status"] + specs.flatMap { ["--probe", $0] } + timeoutArguments
    }

    /// Every form, with the text /ok must answer for its 200 to pass.
    static let everyFormArguments = probing(everyForm) + ["--expect", ProbeTopology.okText]

    /// `probe` of `report`, by its target; a test failure when it is missing.
    func probe(_ target: String, in report: ReachJSON, file: StaticString = #filePath, line: UInt = #line) throws -> ReachJSON.Probe {
        try XCTUnwrap(report.probes?.first { $0.target == target }, "probe \(target) in \(report.probes ?? [])", file: file, line: line)
    }

    /// Every probe failed, each within the probe timeout (plus the half second the issue allows).
    func expectEachFailedInTime(_ report: ReachJSON, count: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(report.probes?.count, count, file: file, line: line)
        for probe in report.probes ?? [] {
            XCTAssertEqual(probe.result, "fail", "\(probe)", file: file, line: line)
            XCTAssertLessThanOrEqual(probe.timeMs, (Self.timeout + 0.5) * 1000, "\(probe)", file: file, line: line)
            XCTAssertNil(probe.location, file: file, line: line)
        }
    }

    // MARK: - full

    func testEveryProbeFormPassesAndTheStateIsFull() throws {
        let net = try ProbeTopology(lab: lab)
        let arguments = Self.everyFormArguments
        let report = try reachJSON(arguments, in: net.host, status: 0)
        XCTAssertEqual(report.command, "status")
        XCTAssertTrue(report.reachable)
        XCTAssertNil(report.reason)
        XCTAssertEqual(report.connectivity, "full")
        XCTAssertEqual(report.paths.map(\.family), ["ipv4", "ipv6"])
        for path in report.paths {
            XCTAssertEqual(path.flags, ["Reachable"], "no InterventionRequired without a portal")
            XCTAssertEqual(path.flagString, "-R -------")
            XCTAssertEqual(path.link?.name, "v0")
            XCTAssertNil(path.underlyingLink, "a veth is no tunnel")
        }
        XCTAssertEqual(report.probes?.map(\.target), Self.everyForm, "one result per probe, in the order given")
        XCTAssertEqual(report.probes?.map(\.kind), ["icmp", "icmp", "tcp", "tcp", "http", "http"])
        for probe in report.probes ?? [] {
            XCTAssertEqual(probe.result, "pass", "\(probe)")
            XCTAssertGreaterThan(probe.timeMs, 0, "\(probe)")
            XCTAssertLessThan(probe.timeMs, Self.timeout * 1000, "\(probe)")
            XCTAssertNil(probe.location, "\(probe)")
        }
        XCTAssertEqual(try probe("icmp:198.51.100.2", in: report).detail.hasPrefix("echo reply from 198.51.100.2 in "), true)
        XCTAssertEqual(try probe("icmp:2001:db8:1::2", in: report).detail.hasPrefix("echo reply from 2001:db8:1::2 in "), true)
        XCTAssertEqual(try probe("tcp:198.51.100.2:443", in: report).detail, "connected to 198.51.100.2 port 443")
        XCTAssertEqual(try probe("tcp:[2001:db8:1::2]:443", in: report).detail, "connected to 2001:db8:1::2 port 443")
        XCTAssertEqual(try probe("http://198.51.100.2/generate_204", in: report).detail, "HTTP 204")
        XCTAssertEqual(try probe("http://[2001:db8:1::2]:8000/ok", in: report).detail, "HTTP 200 with the expected text")

        // The server saw the GETs with the Host header the URL names.
        let requests = ProbeTopology.requests(in: net.server)
        XCTAssertTrue(requests.contains { $0 == ("::ffff:198.18.0.2", "/generate_204", "198.51.100.2") }, "\(requests)")
        XCTAssertTrue(requests.contains { $0 == ("2001:db8::2", "/ok", "[2001:db8:1::2]:8000") }, "\(requests)")

        // The text: the paths, the state with the deciding probe's words, a line per probe.
        let text = try reach(arguments, in: net.host)
        XCTAssertEqual(text.status, 0, "\(text)")
        let lines = text.stdoutLines
        XCTAssertEqual(lines.count, 3 + Self.everyForm.count, "\(text)")
        XCTAssertEqual(lines.first, "IPv4: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2")
        XCTAssertTrue(lines.dropFirst(2).first?.hasPrefix("connectivity: full (") == true, "\(text)")
        for (line, spec) in zip(lines.dropFirst(3), Self.everyForm) {
            // Each line says the family the probe went over.
            let family = spec.contains("2001:db8") ? "IPv6" : "IPv4"
            XCTAssertTrue(line.hasPrefix("  \(spec) (\(family)): pass, ") && line.hasSuffix(" ms"), "\(line)")
        }

        // The CI health check: -q says it by the exit status alone.
        let quiet = try reach(arguments + ["-q"], in: net.host)
        XCTAssertEqual(quiet.status, 0, "\(quiet)")
        XCTAssertEqual(quiet.stdout, "")
    }

    // MARK: - limited

    func testACutUplinkIsLimitedAndEachProbeFailsWithinTheTimeout() throws {
        let net = try ProbeTopology(lab: lab)
        try net.cutUplink()
        let arguments = Self.everyFormArguments
        let report = try reachJSON(arguments, in: net.host, status: 1)
        XCTAssertTrue(report.reachable, "the route to the router is still there")
        XCTAssertEqual(report.connectivity, "limited")
        expectEachFailedInTime(report, count: Self.everyForm.count)
        // The router says why: ICMP errors reach the ICMP probe, the TCP connect fails at once.
        XCTAssertEqual(try probe("icmp:198.51.100.2", in: report).detail, "From 198.18.0.1: Destination Net Unreachable")
        XCTAssertEqual(try probe("tcp:198.51.100.2:443", in: report).detail, "198.51.100.2 port 443: Network is unreachable")
        for path in report.paths { XCTAssertEqual(path.flags, ["Reachable"], "limited sets no flag") }

        let text = try reach(arguments, in: net.host)
        XCTAssertEqual(text.status, 1, "\(text)")
        XCTAssertTrue(text.stdoutLines.contains("connectivity: limited (From 198.18.0.1: Destination Net Unreachable)"), "\(text)")
        XCTAssertLessThan(text.duration, Self.timeout + 1, "the probes run in parallel: \(text)")

        try net.restoreUplink()
        XCTAssertEqual(try reachJSON(arguments, in: net.host, status: 0).connectivity, "full")
    }

    func testAnUplinkThatDropsEverythingTimesEachProbeOut() throws {
        let net = try ProbeTopology(lab: lab)
        try net.dropUplinkSilently()
        let result = try reach(Self.everyFormArguments + ["--json"], in: net.host)
        XCTAssertEqual(result.status, 1, "\(result)")
        let report = try ReachJSON.decode(result)
        XCTAssertEqual(report.connectivity, "limited")
        expectEachFailedInTime(report, count: Self.everyForm.count)
        for probe in report.probes ?? [] {
            XCTAssertGreaterThanOrEqual(probe.timeMs, Self.timeout * 1000 - 50, "nothing answered before the timeout: \(probe)")
            XCTAssertTrue(probe.detail.contains("timed out"), "\(probe)")
        }
        XCTAssertLessThan(result.duration, Self.timeout + 1, "the probes run in parallel: \(result)")
    }

    func testARefusedConnectionFailsAndAloneMakesLimited() throws {
        let net = try ProbeTopology(lab: lab)
        let specs = ["tcp:198.51.100.2:9", "http://[2001:db8:1::2]:9/generate_204"]
        let report = try reachJSON(Self.probing(specs), in: net.host, status: 1)
        XCTAssertEqual(report.connectivity, "limited")
        expectEachFailedInTime(report, count: 2)
        XCTAssertEqual(report.probes?.map(\.detail), [
            "connection refused by 198.51.100.2 port 9", "connection refused by 2001:db8:1::2 port 9",
        ])
    }

    // MARK: - portal

    func testAPortalRedirectBeatsAPassingICMPProbeAndSetsInterventionRequired() throws {
        let net = try ProbeTopology(lab: lab)
        let portal = try net.startPortal()
        let specs = ["icmp:198.51.100.2", "http://198.51.100.2/generate_204", "tcp:198.51.100.2:443", "http://[2001:db8:1::2]/generate_204"]
        let report = try reachJSON(Self.probing(specs), in: net.host, status: 1)
        XCTAssertEqual(report.connectivity, "portal")
        XCTAssertTrue(report.reachable)
        XCTAssertEqual(report.probes?.map(\.result), ["pass", "portal", "pass", "portal"])
        for target in ["http://198.51.100.2/generate_204", "http://[2001:db8:1::2]/generate_204"] {
            let redirected = try probe(target, in: report)
            XCTAssertEqual(redirected.location, ProbeTopology.portalLocation)
            XCTAssertEqual(redirected.detail, "http probe redirected to \(ProbeTopology.portalLocation)")
        }
        for path in report.paths {
            XCTAssertEqual(path.flags, ["Reachable", "InterventionRequired"], "\(path.family)")
            XCTAssertEqual(path.flagString, "-R --i----")
        }
        // The portal, not the internet's server, answered: the redirect is the router's.
        XCTAssertEqual(ProbeTopology.requests(in: portal).map(\.path), ["/generate_204", "/generate_204"])
        XCTAssertEqual(ProbeTopology.requests(in: net.server).count, 0)

        let text = try reach(Self.probing(specs) + ["--flags"], in: net.host)
        XCTAssertEqual(text.status, 1, "\(text)")
        XCTAssertEqual(text.stdoutLines.first, "IPv4: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2, flags -R --i----")
        let stateLine = "connectivity: portal (http probe redirected to \(ProbeTopology.portalLocation))"
        XCTAssertTrue(text.stdoutLines.contains(stateLine), "\(text)")
    }

    /// NetworkManager's rule: anything but 204, or 200 with the expected text, is a portal.
    func testAnAnswerThatIsNeither204NorTheExpected200IsAPortal() throws {
        let net = try ProbeTopology(lab: lab)
        for (arguments, detail) in [
            (["--probe", "http://198.51.100.2/ok"], "HTTP 200"),
            (["--probe", "http://198.51.100.2/ok", "--expect", "not-in-the-body"], "HTTP 200 without the expected text"),
            (["--probe", "http://198.51.100.2/missing"], "HTTP 404"),
        ] {
            let report = try reachJSON(["status"] + arguments + Self.timeoutArguments, in: net.host, status: 1)
            XCTAssertEqual(report.connectivity, "portal", "\(arguments)")
            XCTAssertEqual(report.probes?.map(\.detail), [detail], "\(arguments)")
            XCTAssertEqual(report.probes?.first?.location, nil)
        }
    }

    // MARK: - none

    func testNoDefaultRouteIsNoneAndNoProbePacketLeaves() throws {
        let net = try ProbeTopology(lab: lab, defaultRoutes: false)
        try net.routeOnlyToTheInternetsPrefixes()
        try net.countHostPackets()
        let arguments = Self.everyFormArguments

        let report = try reachJSON(arguments, in: net.host, status: 1)
        XCTAssertFalse(report.reachable)
        XCTAssertEqual(report.reason, "no_route")
        XCTAssertEqual(report.connectivity, "none")
        XCTAssertEqual(report.probes, [], "nothing probed")
        let text = try reach(arguments, in: net.host)
        XCTAssertEqual(text.status, 1)
        XCTAssertEqual(text.stdoutLines.last, "connectivity: none (no usable route; nothing probed)")
        XCTAssertLessThan(text.duration, 0.5, "nothing waited for: \(text)")
        XCTAssertEqual(try net.hostPacketsSeen(), 0, "no probe packet reached the internet")

        // The counter does count: with a default route the same probes arrive.
        try net.host.ip("route", "add", "default", "via", "198.18.0.1")
        XCTAssertEqual(try reachJSON(arguments, in: net.host, status: nil).connectivity, "full")
        XCTAssertGreaterThan(try net.hostPacketsSeen(), 0)
    }

    // MARK: - permission

    func testAnICMPProbeWithoutPermissionExits77WithPingsMessage() throws {
        let net = try ProbeTopology(lab: lab)
        let binary = try binaryForOtherUsers()
        // A fresh namespace has ping_group_range "1 0": nobody has neither socket.
        for (specs, target) in [(["icmp:198.51.100.2"], ProbeTopology.internetV4),
                                (["tcp:198.51.100.2:443", "icmp:2001:db8:1::2"], ProbeTopology.internetV6)] {
            let ping = try net.host.exec(Self.asNobody + [binary, "ping", "-c", "1", target])
            XCTAssertEqual(ping.status, 77, "\(ping)")
            let result = try net.host.exec(Self.asNobody + [binary] + Self.probing(specs))
            XCTAssertEqual(result.status, 77, "never 'limited': \(result)")
            XCTAssertEqual(result.stdout, "", "\(result)")
            XCTAssertEqual(result.stderrLines.count, 1, "\(result)")
            XCTAssertEqual(result.stderr, ping.stderr, "the same words as ping")
            // watch too: its first state waits for the first check, so nothing reaches stdout.
            let watch = try net.host.exec(Self.asNobody + [binary, "watch"] + Self.probing(specs).dropFirst(), timeout: 5)
            XCTAssertEqual(watch.status, 77, "\(watch)")
            XCTAssertEqual(watch.stdout, "", "\(watch)")
            XCTAssertEqual(watch.stderr, ping.stderr, "\(watch)")
        }
        // With the range open, nobody's ICMP probe uses the datagram socket and passes.
        try net.host.sysctl(["net.ipv4.ping_group_range=0 2147483647"])
        let allowed = try net.host.exec(Self.asNobody + [binary] + Self.probing(["icmp:198.51.100.2", "icmp:2001:db8:1::2"]) + ["--json"])
        XCTAssertEqual(allowed.status, 0, "\(allowed)")
        XCTAssertEqual(try ReachJSON.decode(allowed).probes?.map(\.result), ["pass", "pass"])
    }

    // MARK: - tunnels

    /// vxlan over the veth, each family: the path's link is the vxlan, its underlying link
    /// the veth that carries the route to the vxlan's remote end; probes cross the tunnel.
    func testAVxlanOverTheVethReportsTheVethAsItsUnderlyingLink() throws {
        let net = try ProbeTopology(lab: lab, defaultRoutes: false)
        for (link, id, port, local, remote) in [("vx4", "42", "4789", "198.18.0.2", "198.18.0.1"),
                                                ("vx6", "46", "4790", "2001:db8::2", "2001:db8::1")] {
            try net.host.ip("link", "add", link, "type", "vxlan", "id", id, "remote", remote, "local", local,
                            "dstport", port, "dev", "v0")
            try net.router.ip("link", "add", link, "type", "vxlan", "id", id, "remote", local, "local", remote,
                              "dstport", port, "dev", "r0")
        }
        try net.host.ip("addr", "add", "203.0.113.2/24", "dev", "vx4")
        try net.router.ip("addr", "add", "203.0.113.1/24", "dev", "vx4")
        try net.host.ip("-6", "addr", "add", "2001:db8:7::2/64", "dev", "vx6", "nodad")
        try net.router.ip("-6", "addr", "add", "2001:db8:7::1/64", "dev", "vx6", "nodad")
        for namespace in [net.host, net.router] {
            for link in ["vx4", "vx6"] {
                try namespace.ip("link", "set", link, "up")
                try namespace.waitFor(link: link, operstate: "UNKNOWN")
            }
        }
        try net.host.ip("route", "add", "default", "via", "203.0.113.1", "dev", "vx4")
        try net.host.ip("-6", "route", "add", "default", "via", "2001:db8:7::1", "dev", "vx6")
        try net.internet.ip("route", "add", "203.0.113.0/24", "via", "198.51.100.1")
        try net.internet.ip("-6", "route", "add", "2001:db8:7::/64", "via", "2001:db8:1::1")
        try net.waitUntilTheInternetAnswers()

        let specs = ["http://198.51.100.2/generate_204", "http://[2001:db8:1::2]/generate_204"]
        let report = try reachJSON(Self.probing(specs), in: net.host, status: 0)
        XCTAssertEqual(report.connectivity, "full")
        XCTAssertEqual(report.paths.map { $0.link?.name }, ["vx4", "vx6"])
        XCTAssertEqual(report.paths.map { $0.link?.kind }, ["virtual", "virtual"])
        for path in report.paths {
            let underlay = try XCTUnwrap(path.underlyingLink, "\(path.family)")
            XCTAssertEqual(underlay.name, "v0")
            XCTAssertEqual(underlay.kind, "virtual")
            XCTAssertEqual(underlay.operstate, "up")
            XCTAssertNotEqual(underlay.index, path.link?.index)
            XCTAssertEqual(path.flags, ["Reachable"], "a veth underlay folds in no IsWWAN")
        }
        XCTAssertEqual(report.paths.map(\.gateway), ["203.0.113.1", "2001:db8:7::1"])
        // The probes came out of the tunnel: the server saw the vxlan addresses.
        XCTAssertEqual(Set(ProbeTopology.requests(in: net.server).map(\.client)), ["::ffff:203.0.113.2", "2001:db8:7::2"],
                       net.server.log)

        let text = try reach(["status"], in: net.host)
        XCTAssertEqual(text.stdoutLines, [
            "IPv4: reachable via virtual vx4 over virtual v0, gateway 203.0.113.1, source 203.0.113.2",
            "IPv6: reachable via virtual vx6 over virtual v0, gateway 2001:db8:7::1, source 2001:db8:7::2",
        ])
    }
}

import XCTest

/// `reach host` through DNS servers the lab starts inside the network (the router answers
/// at 198.18.0.1); the client's resolver points only at them.
final class DNSTests: NamespaceTestCase {
    private var net: LabTopology!

    override func setUpWithError() throws {
        try super.setUpWithError()
        net = try LabTopology(lab: lab, attachTun: false)
        try net.client.useResolver(["198.18.0.1"])
    }

    private func startDNSMasq() throws -> BackgroundProcess {
        try lab.startDNSMasq(in: net.router, address: "198.18.0.1", records: [
            // A reachable through the router, AAAA behind an unreachable route.
            "db.reach.test": ["198.18.1.2", "2001:db8:f1::1"],
            "both.reach.test": ["198.18.1.2", "2001:db8:1::2"],
            "v4only.reach.test": ["198.18.0.1"],
        ], nonexistent: ["missing.reach.test"])
    }

    func testNameWithAAndAAAAEvaluatesBothAddresses() throws {
        let server = try startDNSMasq()
        let report = try reachJSON(["host", "db.reach.test"], in: net.client, status: 0)
        XCTAssertEqual(report.command, "host")
        XCTAssertEqual(report.target, "db.reach.test")
        XCTAssertTrue(report.reachable, "reachable when any address is")
        XCTAssertNil(report.reason)
        XCTAssertNil(report.resolverError)
        XCTAssertEqual(Set(report.paths.map(\.address)), ["198.18.1.2", "2001:db8:f1::1"])
        let ipv4 = try XCTUnwrap(report.paths.first { $0.family == "ipv4" })
        XCTAssertTrue(ipv4.reachable)
        XCTAssertEqual(ipv4.gateway, "198.18.0.1")
        XCTAssertEqual(ipv4.link?.name, "v0")
        XCTAssertEqual(ipv4.flags, ["Reachable"])
        let ipv6 = try XCTUnwrap(report.paths.first { $0.family == "ipv6" })
        XCTAssertFalse(ipv6.reachable)
        XCTAssertEqual(ipv6.reason, "unreachable_route")
        XCTAssertNil(ipv6.link)
        XCTAssertTrue(server.log.contains("query[A] db.reach.test"), "asked our server: \(server.log)")
        XCTAssertTrue(server.log.contains("query[AAAA] db.reach.test"), "asked for AAAA too: \(server.log)")

        let text = try reach(["host", "db.reach.test"], in: net.client)
        XCTAssertEqual(text.status, 0)
        XCTAssertEqual(Set(text.stdoutLines), [
            "db.reach.test (198.18.1.2): reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2",
            "db.reach.test (2001:db8:f1::1): not reachable (unreachable route)",
        ])

        let both = try reachJSON(["host", "both.reach.test"], in: net.client, status: 0)
        XCTAssertEqual(Set(both.paths.map(\.address)), ["198.18.1.2", "2001:db8:1::2"])
        XCTAssertEqual(both.paths.map(\.reachable), [true, true])
        XCTAssertEqual(Set(both.paths.compactMap(\.gateway)), ["198.18.0.1", "2001:db8::1"])

        // -4 / -6 ask for one family; the verdict is that family's.
        let only4 = try reachJSON(["host", "-4", "db.reach.test"], in: net.client, status: 0)
        XCTAssertEqual(only4.paths.map(\.address), ["198.18.1.2"])
        let only6 = try reachJSON(["host", "-6", "db.reach.test"], in: net.client, status: 1)
        XCTAssertEqual(only6.paths.map(\.address), ["2001:db8:f1::1"])
        XCTAssertEqual(only6.reason, "unreachable_route")
        // A name with no address of the family asked for does not resolve.
        let none6 = try reachJSON(["host", "-6", "v4only.reach.test"], in: net.client, status: 2)
        XCTAssertEqual(none6.reason, "name_not_resolved")
        XCTAssertEqual(none6.paths, [])
    }

    func testNXDOMAINIsNameNotResolvedExit2() throws {
        let server = try startDNSMasq()
        let report = try reachJSON(["host", "missing.reach.test"], in: net.client, status: 2)
        XCTAssertEqual(report.target, "missing.reach.test")
        XCTAssertFalse(report.reachable)
        XCTAssertEqual(report.reason, "name_not_resolved")
        // The resolver's words: gai_strerror(EAI_NONAME) (glibc sysdeps/posix/gai_strerror-strs.h).
        XCTAssertEqual(report.resolverError, "Name or service not known")
        XCTAssertEqual(report.paths, [])
        XCTAssertTrue(server.log.contains("missing.reach.test is NXDOMAIN"), server.log)

        let text = try reach(["host", "missing.reach.test"], in: net.client)
        XCTAssertEqual(text.status, 2)
        XCTAssertEqual(text.stdoutLines.count, 1)
        XCTAssertTrue(text.stdout.hasPrefix("missing.reach.test: not reachable (name not resolved: "), text.stdout)
        let quiet = try reach(["host", "missing.reach.test", "-q"], in: net.client)
        XCTAssertEqual(quiet.status, 2)
        XCTAssertEqual(quiet.stdout, "")
    }

    /// The longest name and label that are valid are asked for, not refused as bad input
    /// (the bad-input table has the ones a character longer).
    func testLongestValidNameIsResolvedNotRefused() throws {
        let server = try startDNSMasq()
        let suffix = ".missing.reach.test"
        let label = String(repeating: "c", count: 63)
        let filler = String(repeating: "d", count: 253 - 3 * (63 + 1) - suffix.count)
        let name = [label, label, label, filler].joined(separator: ".") + suffix
        XCTAssertEqual(name.utf8.count, 253)
        for candidate in [name, label + suffix, name + "."] {
            let report = try reachJSON(["host", candidate], in: net.client, status: 2)
            XCTAssertEqual(report.reason, "name_not_resolved", candidate)
            XCTAssertEqual(report.target, candidate)
        }
        XCTAssertTrue(server.log.contains("query[A] \(name)"), "the name reached the server")
    }

    func testServerThatNeverAnswersEndsAtTheTimeout() throws {
        let server = try lab.startSilentDNS(in: net.router, address: "198.18.0.1")
        // The resolver would wait 5 s x 2 attempts per query; --timeout 1 must cut it short.
        let result = try reach(["host", "slow.reach.test", "--timeout", "1", "--json"], in: net.client)
        XCTAssertEqual(result.status, 2, "\(result)")
        XCTAssertGreaterThanOrEqual(result.duration, 0.9, "waited for the timeout: \(result)")
        XCTAssertLessThan(result.duration, 1.5, "ended within --timeout + 0.5 s: \(result)")
        let report = try ReachJSON.decode(result)
        XCTAssertEqual(report.reason, "name_not_resolved")
        XCTAssertEqual(report.resolverError, "no answer within 1 s", "as README and reach(1) quote it")
        XCTAssertEqual(report.paths, [])
        XCTAssertTrue(server.log.contains("dropped"), "the query reached the silent server: \(server.log)")

        let text = try reach(["host", "slow.reach.test", "--timeout", "300ms"], in: net.client)
        XCTAssertEqual(text.status, 2)
        XCTAssertLessThan(text.duration, 0.8, "\(text)")
        XCTAssertEqual(text.stdout, "slow.reach.test: not reachable (name not resolved: no answer within 0.3 s)\n")
    }
}

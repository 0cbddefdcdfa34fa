import Foundation
import XCTest

/// `reach trace` on a chain of namespaces (TraceTopology), beside traceroute 2.1.2 on the
/// same chain: the same hops, stars and annotations, IPv4 and IPv6.
final class TraceTests: NamespaceTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["ip", "traceroute", "nft", "setpriv"])
    }

    func trace(_ arguments: [String], in namespace: Namespace, timeout: Double = 60) throws -> CommandResult {
        try ReachBinary.run(["trace"] + arguments, in: namespace, timeout: timeout)
    }

    func traceroute(_ arguments: [String], in namespace: Namespace, timeout: Double = 60) throws -> CommandResult {
        try namespace.exec(["traceroute"] + arguments, timeout: timeout)
    }

    /// The lines with every round trip as "T ms": what both tools must print alike.
    static func masked(_ result: CommandResult) -> [String] {
        result.stdoutLines.map { line in
            line.split(separator: " ", omittingEmptySubsequences: false).enumerated().map { index, word -> String in
                let words = line.split(separator: " ", omittingEmptySubsequences: false)
                let isTime = index + 1 < words.count && words[index + 1] == "ms" && Double(word) != nil
                return isTime ? "T" : String(word)
            }.joined(separator: " ")
        }
    }

    /// Runs both tools with `arguments` and compares their masked text and exit status.
    /// Which answers reach a run is the kernel's doing under load: a pair that differs is run
    /// again (twice at most) before it is compared.
    @discardableResult
    func compare(_ arguments: [String], in net: TraceTopology, file: StaticString = #filePath, line: UInt = #line) throws -> CommandResult {
        var ours = try trace(arguments, in: net.client)
        var theirs = try traceroute(arguments, in: net.client)
        for _ in 0..<2 where Self.masked(ours) != Self.masked(theirs) {
            try net.warmNeighbours()
            (ours, theirs) = (try trace(arguments, in: net.client), try traceroute(arguments, in: net.client))
        }
        XCTAssertEqual(Self.masked(ours), Self.masked(theirs), "\(arguments): \(ours)\n\(theirs)", file: file, line: line)
        XCTAssertFalse(ours.timedOut, "\(ours)", file: file, line: line)
        return ours
    }

    func testSameHopsAsTracerouteForEachMethodAndFamily() throws {
        let net = try TraceTopology(lab: lab)
        try net.warmNeighbours()
        for target in [net.farIPv4, net.farIPv6] {
            for method in [[], ["-U"], ["-I"], ["-T"]] {
                let ours = try compare(["-n"] + method + [target], in: net)
                XCTAssertEqual(ours.status, 0, "\(method) \(target): \(ours)")
                XCTAssertEqual(ours.stdoutLines.count, 5, "the header and four hops: \(ours)")
                XCTAssertEqual(ours.stderrLines, ["trace: last answer from hop 4 (\(target)); the destination answered at hop 4"])
            }
        }
        // The options that shape the run, and the packet length operand.
        let shaped = try compare(["-n", "-q", "1", "-f", "2", "-m", "3", "-N", "1", "-w", "2,3,10", net.farIPv4, "100"], in: net)
        XCTAssertEqual(shaped.status, 1, "the destination is four hops away, past -m 3: \(shaped)")
        XCTAssertEqual(shaped.stdoutLines.first, "traceroute to \(net.farIPv4) (\(net.farIPv4)), 3 hops max, 100 byte packets")
    }

    func testNamesAreLookedUpAsTracerouteLooksThemUp() throws {
        let net = try TraceTopology(lab: lab)
        // Names from the namespace's own hosts file (ip netns exec mounts /etc/netns/NAME/hosts
        // on /etc/hosts, ip-netns(8)); any other lookup asks a router with no server on port 53,
        // which refuses at once.
        try net.client.useResolver([net.routerIPv4(1)], options: "options timeout:1 attempts:1")
        let hosts = "\(net.routerIPv4(2)) r2.example\n\(net.farIPv4) far.example\n"
        try hosts.write(toFile: "/etc/netns/\(net.client.name)/hosts", atomically: true, encoding: .utf8)
        try net.warmNeighbours()
        let ours = try compare(["far.example"], in: net)
        XCTAssertEqual(ours.status, 0, "\(ours)")
        XCTAssertEqual(ours.stdoutLines.first, "traceroute to far.example (\(net.farIPv4)), 30 hops max, 60 byte packets")
        XCTAssertTrue(ours.stdoutLines[1].hasPrefix(" 1  \(net.routerIPv4(1)) (\(net.routerIPv4(1)))  "), "\(ours)")
        XCTAssertTrue(ours.stdoutLines[2].hasPrefix(" 2  r2.example (\(net.routerIPv4(2)))  "), "\(ours)")
        XCTAssertTrue(ours.stdoutLines[4].hasPrefix(" 4  far.example (\(net.farIPv4))  "), "\(ours)")
    }

    func testARouterThatSendsNoTimeExceededIsStars() throws {
        let net = try TraceTopology(lab: lab)
        try net.silenceTimeExceeded(at: 2)
        try net.warmNeighbours()
        for target in [net.farIPv4, net.farIPv6] {
            let started = Date()
            let ours = try compare(["-n", target], in: net)
            XCTAssertEqual(ours.status, 0, "\(ours)")
            XCTAssertEqual(ours.stdoutLines[2], " 2  * * *")
            // NEAR: once later hops answered, the silent hop's wait is 10 times their round trip,
            // not the 5 s maximum (bound generous for a loaded machine).
            XCTAssertLessThan(Date().timeIntervalSince(started), 25, "\(ours)")
        }
    }

    func testAnUnreachableRouteIsAnnotatedAndExits1() throws {
        let net = try TraceTopology(lab: lab)
        // IPv4 reject routes answer through ip_error (net/ipv4/route.c), limited per source
        // by a bucket of 5 errors, one more a second, that only the initial namespace can set
        // (net.ipv4.route.error_cost): each run from its own address, a new source with a
        // full bucket, so that back-to-back runs see the same answers.
        for source in ["198.18.0.3", "198.18.0.4"] { try net.client.ip("addr", "add", "\(source)/24", "dev", "e0r") }
        try net.warmNeighbours()
        let runs: [(target: String, annotation: String, reason: String, sources: [[String]])] = [
            (net.unreachableIPv4, "!H", "host unreachable", [["-s", "198.18.0.3"], ["-s", "198.18.0.4"]]),
            (net.unreachableIPv6, "!N", "network unreachable", [[], []]),
        ]
        for run in runs {
            let ours = try trace(["-n"] + run.sources[0] + [run.target], in: net.client)
            let theirs = try traceroute(["-n"] + run.sources[1] + [run.target], in: net.client)
            XCTAssertEqual(Self.masked(ours), Self.masked(theirs), "\(ours)\n\(theirs)")
            XCTAssertEqual(ours.status, 1, "\(ours)")
            XCTAssertEqual(ours.stdoutLines.count, 3, "\(ours)")
            XCTAssertTrue(ours.stdoutLines.last?.hasSuffix(run.annotation) == true, "\(ours)")
            let router = run.target == net.unreachableIPv4 ? net.routerIPv4(2) : net.routerIPv6(2)
            XCTAssertEqual(
                ours.stderrLines, ["trace: last answer from hop 2 (\(router)); stopped at hop 2: \(run.reason) (\(run.annotation))"])
        }
    }

    func testARateLimitedRouterAnswersAsItsTokensAllow() throws {
        let net = try TraceTopology(lab: lab)
        // Each tool from its own address: the limit keeps tokens per destination (inet_peer_xrlim_allow
        // in net/ipv4/inetpeer.c), a bucket of at most 6 periods, full for a new peer. With a period
        // of 30 s each address gets the same first answers, then none for the rest of the test.
        for source in ["198.18.0.3", "198.18.0.4"] { try net.client.ip("addr", "add", "\(source)/24", "dev", "e0r") }
        try net.warmNeighbours()
        try net.routers[2].sysctl(["net.ipv4.icmp_ratelimit=30000"])
        let ours = try trace(["-n", "-s", "198.18.0.3", net.farIPv4], in: net.client)
        let theirs = try traceroute(["-n", "-s", "198.18.0.4", net.farIPv4], in: net.client)
        XCTAssertEqual(Self.masked(ours), Self.masked(theirs), "\(ours)\n\(theirs)")
        XCTAssertEqual(ours.status, 0, "\(ours)")
        XCTAssertTrue(ours.stdoutLines[3].contains("*"), "some of hop 3's answers are held back: \(ours)")
        XCTAssertTrue(ours.stdoutLines[3].contains(net.routerIPv4(3)), "and some come: \(ours)")
    }

    func testHopZeroNamesABlackholeBeforeAnyProbe() throws {
        let net = try TraceTopology(lab: lab)
        try net.client.ip("route", "add", "blackhole", "198.19.8.0/24")
        let result = try trace(["-n", "198.19.8.1"], in: net.client)
        XCTAssertEqual(result.status, 1, "\(result)")
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderrLines.count, 1, "\(result)")
        XCTAssertTrue(result.stderr.hasPrefix("hop 0: 198.19.8.1: not reachable ("), "\(result)")
    }

    func testWithoutPrivilegeTheDefaultMethodStillTraces() throws {
        let net = try TraceTopology(lab: lab)
        try net.warmNeighbours()
        let binary = try binaryForOtherUsers()
        // A fresh namespace's ping_group_range is "1 0": no ICMP datagram socket for anyone.
        let udp = try net.client.exec(Self.asNobody + [binary, "trace", "-n", net.farIPv4], timeout: 60)
        XCTAssertEqual(udp.status, 0, "\(udp)")
        XCTAssertEqual(udp.stdoutLines.count, 5, "\(udp)")
        XCTAssertEqual(udp.stdoutLines[4].split(separator: " ").first, "4")
        // ICMP without a datagram socket, and TCP, need a raw socket: one line, exit 77.
        for method in ["-I", "-T"] {
            let refused = try net.client.exec(Self.asNobody + [binary, "trace", "-n", method, net.farIPv4], timeout: 60)
            XCTAssertEqual(refused.status, 77, "\(refused)")
            XCTAssertEqual(refused.stderrLines.count, 1, "\(refused)")
            XCTAssertTrue(refused.stderr.hasPrefix("reach: "), "\(refused)")
            XCTAssertEqual(refused.stdout, "")
        }
        // Where ping_group_range lets everyone have an ICMP datagram socket, -I traces through
        // it, its errors read from the error queue as UDP's are.
        try net.client.sysctl(["net.ipv4.ping_group_range=0 2147483647"])
        for target in [net.farIPv4, net.farIPv6] {
            let datagram = try net.client.exec(Self.asNobody + [binary, "trace", "-n", "-I", target], timeout: 60)
            XCTAssertEqual(datagram.status, 0, "\(datagram)")
            XCTAssertEqual(datagram.stdoutLines.count, 5, "\(datagram)")
            let router = target == net.farIPv4 ? net.routerIPv4(2) : net.routerIPv6(2)
            XCTAssertTrue(datagram.stdoutLines[2].hasPrefix(" 2  \(router)  "), "\(datagram)")
            XCTAssertTrue(datagram.stdoutLines[4].hasPrefix(" 4  \(target)  "), "\(datagram)")
        }
    }

    func testBadInputIsOneLineAndItsExitStatus() throws {
        let net = try TraceTopology(lab: lab)
        // Names are asked of a server that is not there (the router has nothing on port 53).
        try net.client.useResolver([net.routerIPv4(1)], options: "options timeout:1 attempts:1")
        let cases: [([String], Int32)] = [
            (["-m", "0", net.farIPv4], 64), (["-m", "256", net.farIPv4], 64), (["-f", "5", "-m", "3", net.farIPv4], 64),
            (["-M", "gre", net.farIPv4], 64), (["-n", "198.18.0.2"], 64), (["-n", "-i", "nosuch0", net.farIPv4], 64),
            (["-n", "-s", "198.18.9.9", net.farIPv4], 64), (["-n", "-s", "198.18.0.2", net.farIPv6], 64), (["-n", "127.0.0.1"], 64),
            ([], 64),
            (["-n", "nowhere.invalid"], 2),
        ]
        for (arguments, status) in cases {
            let result = try trace(arguments, in: net.client)
            XCTAssertEqual(result.status, status, "\(arguments): \(result)")
            XCTAssertEqual(result.stdout, "", "\(arguments): \(result)")
            XCTAssertEqual(result.stderrLines.count, 1, "\(arguments): \(result)")
            XCTAssertTrue(result.stderr.hasPrefix("reach: "), "\(arguments): \(result)")
        }
    }

    func testFlowsSpreadOverAnECMPPairWhileEachFlowKeepsOnePath() throws {
        let net = try TraceTopology(lab: lab, ecmp: true)
        try net.warmNeighbours()
        for (target, r2, r2b) in [
            (net.farIPv4, net.routerIPv4(2), net.ecmpRouterIPv4), (net.farIPv6, net.routerIPv6(2), net.ecmpRouterIPv6),
        ] {
            // One flow: all of hop 2's probes meet one of the pair (their ports never change).
            let one = try trace(["-n", "-q", "6", target], in: net.client)
            XCTAssertEqual(one.status, 0, "\(one)")
            let hop2 = one.stdoutLines[2]
            XCTAssertNotEqual(hop2.contains(r2), hop2.contains(r2b), "one router of the pair: \(one)")
            // Sixteen flows: both routers of the pair, and the split named (all on one path: 2 in 65,536).
            let many = try trace(["-n", "--flows", "16", target], in: net.client)
            XCTAssertEqual(many.status, 0, "\(many)")
            XCTAssertTrue(many.stdoutLines[2].contains(r2) && many.stdoutLines[2].contains(r2b), "\(many)")
            let r1 = target == net.farIPv4 ? net.routerIPv4(1) : net.routerIPv6(1)
            XCTAssertEqual(many.stdoutLines[1], " 1  \(r1)", "every flow meets r1 first: \(many)")
            XCTAssertEqual(many.stderrLines.last, "trace: 16 flows split at hop 2 over 2 routers", "\(many)")
        }
    }
}

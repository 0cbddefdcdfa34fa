#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// `reach ping` for real, in namespaces the test builds (traffic never leaves them), side by
/// side with iputils `ping` where the two should agree.
final class PingTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-ping-" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["ping", "nft", "setpriv", "setcap"])
    }

    // MARK: - Helpers

    /// reach in `namespace`, whatever it prints where.
    func ping(_ arguments: [String], in namespace: Namespace, timeout: Double = 30) throws -> CommandResult {
        try ReachBinary.run(["ping"] + arguments, in: namespace, timeout: timeout)
    }

    /// iputils ping with the same arguments.
    func iputils(_ arguments: [String], in namespace: Namespace, timeout: Double = 30) throws -> CommandResult {
        try namespace.exec(["ping"] + arguments, timeout: timeout)
    }

    /// The JSON objects printed one per line, of one event kind (a line that does not parse fails).
    func events(_ text: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        JSONLines.events(text, name, file: file, line: line)
    }

    func events(_ result: CommandResult, _ name: String) -> [[String: Any]] { events(result.stdout, name) }

    /// Replaces every number by N, so line shapes can be compared with iputils.
    static func shape(_ line: String) -> String {
        var output = ""
        var inNumber = false
        for character in line {
            if character.isNumber || (inNumber && character == ".") {
                if !inNumber { output += "N" }
                inNumber = true
            } else {
                inNumber = false
                output.append(character)
            }
        }
        return output
    }

    // MARK: - Replies, timeouts, errors

    func testLoopbackIPv4AndIPv6() throws {
        let ns = try lab.namespace("lo")
        for target in ["127.0.0.1", "::1"] {
            let result = try ping(["-c", "3", "-i", "0.1", target], in: ns)
            XCTAssertEqual(result.status, 0, "\(result)")
            XCTAssertEqual(result.stderr, "")
            XCTAssertEqual(result.stdoutLines.filter { $0.hasPrefix("64 bytes from \(target): icmp_seq=") }.count, 3, "\(result)")
            XCTAssertTrue(result.stdout.contains("3 packets transmitted, 3 received, 0% packet loss"), "\(result)")
            XCTAssertTrue(result.stdout.contains("rtt min/avg/max/mdev = "), "\(result)")
        }
    }

    func testVethPeerIPv4AndIPv6WithJSON() throws {
        let net = try ChainTopology(lab: lab)
        for (target, family) in [("198.18.1.2", "ipv4"), ("2001:db8:1::2", "ipv6")] {
            let result = try ping(["-c", "3", "-i", "0.1", "--json", target], in: net.client)
            XCTAssertEqual(result.status, 0, "\(result)")
            let start = try XCTUnwrap(events(result, "start").first)
            XCTAssertEqual(start["family"] as? String, family)
            let replies = events(result, "reply")
            XCTAssertEqual(replies.map { $0["seq"] as? Int }, [1, 2, 3])
            XCTAssertEqual(replies.first?["ttl"] as? Int, 63, "one router on the way")
            XCTAssertEqual(replies.first?["bytes"] as? Int, 64)
            XCTAssertGreaterThan(replies.first?["rtt_ms"] as? Double ?? 0, 0)
            let summary = try XCTUnwrap(events(result, "summary").first)
            XCTAssertEqual(summary["transmitted"] as? Int, 3)
            XCTAssertEqual(summary["received"] as? Int, 3)
            XCTAssertEqual(summary["exit_status"] as? Int, 0)
            let figures = JSONLines.roundTrips(JSONLines.objects(result.stdout))
            XCTAssertEqual(figures.count, 3 + 4, "three replies, then min, avg, max and mdev")
            for figure in figures { XCTAssertTrue(JSONLines.isWholeMicroseconds(figure.milliseconds), "\(figure)") }
        }
    }

    func testPeerDroppingRequestsTimesOutEachProbe() throws {
        let net = try ChainTopology(lab: lab)
        for target in ["198.18.1.3", "2001:db8:1::3"] {
            let json = try ping(["-c", "3", "-i", "0.2", "-W", "0.5", "--json", target], in: net.client)
            XCTAssertEqual(json.status, 1, "\(json)")
            XCTAssertEqual(events(json, "timeout").map { $0["seq"] as? Int }, [1, 2, 3], "\(json)")
            XCTAssertEqual(events(json, "reply").count, 0)
            let text = try ping(["-c", "2", "-i", "0.2", "-W", "0.5", target], in: net.client)
            XCTAssertEqual(text.status, 1)
            XCTAssertTrue(text.stdout.contains("2 packets transmitted, 0 received, 100% packet loss"), "\(text)")
        }
    }

    func testRouterUnreachableRouteSendsHostUnreachable() throws {
        let net = try ChainTopology(lab: lab)
        // What reach must count is what the router sent, read from its own counter: an IPv4
        // `unreachable` route answers through a per-source token bucket of the kernel
        // (ip_error: net.ipv4.route.error_burst 5, error_cost 1 s, host-wide, not per
        // namespace here) that every other ICMP error to the same source also drains
        // (icmp_ratelimit=0 leaves it empty), so now and then a probe gets no answer.
        let sentBefore = try net.router.icmpCounter("OutDestUnreachs")
        let v4 = try ping(["-c", "3", "-i", "0.1", "-W", "2", "198.19.9.9"], in: net.client)
        let sent = try net.router.icmpCounter("OutDestUnreachs") - sentBefore
        XCTAssertEqual(v4.status, 1, "\(v4)")
        XCTAssertGreaterThan(sent, 0, "the router sent no Host Unreachable")
        let lines = v4.stdoutLines.filter { $0.hasPrefix("From 198.18.0.1 icmp_seq=") && $0.hasSuffix(" Destination Host Unreachable") }
        XCTAssertEqual(lines.count, sent, "\(v4)")
        XCTAssertTrue(v4.stdout.contains("3 packets transmitted, 0 received, +\(sent) errors, 100% packet loss"), "\(v4)")
        let v6 = try ping(["-c", "2", "-i", "0.1", "--json", "2001:db8:f1::9"], in: net.client)
        XCTAssertEqual(v6.status, 1)
        let errors = events(v6, "icmp_error")
        XCTAssertEqual(errors.count, 2, "\(v6)")
        XCTAssertEqual(errors.first?["from"] as? String, "2001:db8::1")
        XCTAssertEqual(errors.first?["icmp_type"] as? Int, 1)
        XCTAssertEqual(events(v6, "summary").first?["errors"] as? Int, 2)
    }

    func testTTLOneThroughARouterIsTimeToLiveExceeded() throws {
        let net = try ChainTopology(lab: lab)
        let v4 = try ping(["-c", "2", "-i", "0.1", "-t", "1", "198.18.1.2"], in: net.client)
        XCTAssertEqual(v4.status, 1, "\(v4)")
        XCTAssertTrue(v4.stdoutLines.contains("From 198.18.0.1 icmp_seq=1 Time to live exceeded"), "\(v4)")
        let v6 = try ping(["-c", "2", "-i", "0.1", "-t", "1", "2001:db8:1::2"], in: net.client)
        XCTAssertTrue(v6.stdoutLines.contains("From 2001:db8::1 icmp_seq=2 Time exceeded: Hop limit"), "\(v6)")
    }

    func testDuplicatesAreMarkedAndCounted() throws {
        let net = try ChainTopology(lab: lab)
        // The router clones each echo request to the far host (nft dup): two replies per probe.
        try lab.nft(
            in: net.router, name: "dup",
            """
            table ip rchdup {
              chain pre {
                type filter hook prerouting priority 0;
                ip daddr 198.18.1.2 icmp type echo-request dup to 198.18.1.2
              }
            }
            """)
        let arguments = ["-c", "3", "-i", "0.2", "198.18.1.2"]
        let ours = try ping(arguments, in: net.client)
        XCTAssertEqual(ours.status, 0, "\(ours)")
        XCTAssertEqual(ours.stdoutLines.filter { $0.hasSuffix(" (DUP!)") }.count, 2, "the run ends at the third reply: \(ours)")
        XCTAssertTrue(ours.stdout.contains("3 packets transmitted, 3 received, +2 duplicates, 0% packet loss"), "\(ours)")
        let theirs = try iputils(arguments, in: net.client)
        XCTAssertEqual(ours.stdoutLines.map(Self.shape), theirs.stdoutLines.map(Self.shape))
        let json = try ping(["--json"] + arguments, in: net.client)
        XCTAssertEqual(events(json, "reply").map { $0["duplicate"] as? Bool }, [false, true, false, true, false])
        XCTAssertEqual(events(json, "summary").first?["duplicates"] as? Int, 2)
    }

    func testFirewallRefusalIsASendErrorNotAFailure() throws {
        let net = try ChainTopology(lab: lab)
        // netfilter dropping our own output makes sendto fail with EPERM: a verdict, counted.
        try lab.nft(
            in: net.client, name: "out",
            """
            table ip rchout {
              chain out {
                type filter hook output priority 0;
                ip daddr 198.18.1.2 icmp type echo-request drop
              }
            }
            """)
        let result = try ping(["-c", "2", "-i", "0.1", "--json", "198.18.1.2"], in: net.client)
        XCTAssertEqual(result.status, 1, "\(result)")
        XCTAssertEqual(events(result, "send_failed").map { $0["errno"] as? Int }, [Int(EPERM), Int(EPERM)], "\(result)")
        XCTAssertEqual(events(result, "summary").first?["errors"] as? Int, 2)
        let text = try ping(["-c", "1", "198.18.1.2"], in: net.client)
        XCTAssertEqual(text.status, 1)
        XCTAssertEqual(text.stderr, "reach: icmp_seq=1: sendto: Operation not permitted\n")
    }

    func testIPv6LinkLocalWithZone() throws {
        let net = try ChainTopology(lab: lab)
        let linkLocal = try net.router.linkLocalAddress(of: "r0")
        let result = try ping(["-c", "2", "-i", "0.1", "\(linkLocal)%v0"], in: net.client)
        XCTAssertEqual(result.status, 0, "\(result)")
        XCTAssertEqual(result.stdoutLines.filter { $0.hasPrefix("64 bytes from \(linkLocal)%v0: icmp_seq=") }.count, 2, "\(result)")
        let unknownZone = try ping(["-c", "1", "\(linkLocal)%nosuchif"], in: net.client)
        XCTAssertEqual(unknownZone.status, 64, "\(unknownZone)")
    }

    func testNamesResolveOrExit2() throws {
        let ns = try lab.namespace("dns")
        // A resolver on the namespace's own loopback where nothing listens: no query leaves it.
        try ns.useResolver(["127.0.0.1"], options: "options timeout:1 attempts:1")
        let unknown = try ping(["-c", "1", "no-such-host.invalid"], in: ns)
        XCTAssertEqual(unknown.status, 2, "\(unknown)")
        XCTAssertEqual(unknown.stdout, "")
        XCTAssertTrue(unknown.stderr.hasPrefix("reach: no-such-host.invalid: "), "\(unknown)")
        // localhost comes from /etc/hosts: the name is shown as iputils shows it.
        let local = try ping(["-c", "1", "-4", "localhost"], in: ns)
        XCTAssertEqual(local.status, 0, "\(local)")
        XCTAssertEqual(local.stdoutLines.first, "PING localhost (127.0.0.1) 56(84) bytes of data.")
        XCTAssertTrue(
            local.stdoutLines.contains { $0.hasPrefix("64 bytes from localhost (127.0.0.1): icmp_seq=1 ttl=64 time=") }, "\(local)")
        XCTAssertTrue(local.stdout.contains("--- localhost ping statistics ---"))
    }

    /// A name that resolves to IPv6 only: the PING header as iputils prints it, the name
    /// inside the brackets too (`PING db.test(db.test (2001:db8:1::2)) 56 data bytes`).
    func testIPv6NameHeaderMatchesIputils() throws {
        let net = try ChainTopology(lab: lab)
        // The name from the namespace's own hosts file; a resolver where nothing listens.
        try net.client.etcFile("hosts", "127.0.0.1 localhost\n\(net.farIPv6) db.test\n")
        try net.client.useResolver(["127.0.0.1"], options: "options timeout:1 attempts:1")
        let ours = try ping(["-c", "1", "db.test"], in: net.client)
        let theirs = try iputils(["-c", "1", "db.test"], in: net.client)
        XCTAssertEqual(ours.status, 0, "\(ours)")
        XCTAssertEqual(ours.stdoutLines.first, "PING db.test(db.test (\(net.farIPv6))) 56 data bytes", "\(ours)")
        XCTAssertEqual(ours.stdoutLines.first, theirs.stdoutLines.first, "\(theirs)")
        XCTAssertEqual(ours.stdoutLines.dropFirst().first.map(Self.shape), theirs.stdoutLines.dropFirst().first.map(Self.shape))
    }

    func testDeadline() throws {
        let net = try ChainTopology(lab: lab)
        let silent = try ping(["-w", "1", "-i", "0.2", "198.18.1.3"], in: net.client)
        XCTAssertEqual(silent.status, 1, "\(silent)")
        // -w 1 ends the run 1 s after it starts (iputils ping(8)): not before, and not later than
        // 0.5 s more, the start and exit of a debug build under ip netns exec on a loaded runner.
        XCTAssertGreaterThanOrEqual(silent.duration, 1.0, "the deadline is waited for")
        XCTAssertLessThan(silent.duration, 1.5, "the deadline is honoured")
        XCTAssertTrue(silent.stdout.contains(" 0 received, 100% packet loss"), "\(silent)")
        // With -c and -w both, success needs count replies.
        let answered = try ping(["-c", "2", "-w", "3", "-i", "0.2", "198.18.1.2"], in: net.client)
        XCTAssertEqual(answered.status, 0, "\(answered)")
    }

    func testInterruptPrintsStatistics() throws {
        let ns = try lab.namespace("int")
        let process = try lab.launch([ReachBinary.path, "ping", "-i", "0.1", "127.0.0.1"], in: ns, label: "sigint")
        // Interrupt once replies flow (the handler is in place by then), however slow the start.
        for _ in 0..<500 where !process.log.contains("icmp_seq=2 ") { usleep(10_000) }
        kill(process.pid, SIGINT)
        let status = process.waitForExit()
        XCTAssertEqual(status, 0, process.log)
        XCTAssertTrue(process.log.contains("--- 127.0.0.1 ping statistics ---"), process.log)
        XCTAssertTrue(process.log.contains("rtt min/avg/max/mdev"), process.log)
    }

    func testQuitSignalPrintsTheStatisticsSoFarAndGoesOn() throws {
        let ns = try lab.namespace("quit")
        let process = try lab.launch([ReachBinary.path, "ping", "-c", "8", "-i", "0.1", "127.0.0.1"], in: ns, label: "sigquit")
        for _ in 0..<500 where !process.log.contains("icmp_seq=2 ") { usleep(10_000) }
        kill(process.pid, SIGQUIT)
        let status = process.waitForExit()
        XCTAssertEqual(status, 0, process.log)
        // iputils status(): "\rN/M packets, 0% loss, min/avg/ewma/max = a/b/c/d ms" on stderr.
        let line = process.log.split(separator: "\n").first { $0.contains(" packets, ") && $0.contains("% loss") }
        XCTAssertNotNil(line, process.log)
        XCTAssertTrue(line?.hasPrefix("\r") ?? false, process.log)
        XCTAssertTrue(line?.contains(", min/avg/ewma/max = ") ?? false, process.log)
        XCTAssertTrue(process.log.contains("8 packets transmitted, 8 received"), "the run went on:\n\(process.log)")
    }

    func testClosedStandardOutputIsAWriteFailureNotASocket() throws {
        let ns = try lab.namespace("closed")
        // Started with stdout closed, the first socket would take descriptor 1 and the lines
        // would go into it; reach opens /dev/null read-only there first, so writes fail.
        for command in ["ping -c 1 127.0.0.1", "watch --timeout 1", "status"] {
            let result = try ns.exec(["sh", "-c", "exec '\(ReachBinary.path)' \(command) >&-"], timeout: 10)
            XCTAssertEqual(result.status, 71, "\(command): \(result)")
            XCTAssertEqual(result.stderrLines, ["reach: cannot write to standard output: Bad file descriptor"], "\(command)")
        }
    }

    func testEndsWhenTheReaderGoesAway() throws {
        let ns = try lab.namespace("pipe")
        // No -c: without noticing the closed pipe it would ping forever.
        let result = try ns.exec(["sh", "-c", "'\(ReachBinary.path)' ping -i 0.1 127.0.0.1 | head -2"], timeout: 10)
        XCTAssertFalse(result.timedOut, "\(result)")
        XCTAssertEqual(result.stdoutLines.count, 2, "\(result)")
    }

    // MARK: - Compared with iputils

    func testOutputShapesMatchIputils() throws {
        let net = try ChainTopology(lab: lab)
        let cases: [[String]] = [
            ["-c", "3", "-i", "0.2", "198.18.1.2"], ["-c", "2", "-i", "0.2", "2001:db8:1::2"],
            ["-c", "2", "-i", "0.2", "198.19.9.9"], ["-c", "2", "-i", "0.2", "-t", "1", "198.18.1.2"],
            ["-c", "2", "-i", "0.2", "-W", "1", "198.18.1.3"], ["-q", "-c", "2", "-i", "0.2", "198.18.1.2"],
            ["-c", "2", "-i", "0.2", "-D", "198.18.1.2"], ["-c", "1", "-s", "100", "198.18.1.2"],
            ["-c", "1", "-I", "v0", "198.18.1.2"], ["-c", "1", "-I", "198.18.0.2", "198.18.1.2"],
            ["-c", "3", "-i", "0.2", "-O", "-W", "1", "198.18.1.3"],
            // No neighbour behind the router: its ARP gives up after 3 s and answers every queued
            // probe with Host Unreachable, so several are out at once ("pipe N").
            ["-c", "4", "-i", "0.5", "198.18.1.9"],
            // getopt's groups as scripts write them: flags ending in a value option.
            ["-qc1", "198.18.1.2"], ["-nqc", "2", "-i0.2", "2001:db8:1::2"],
        ]
        // Each run starts from the same neighbour state: the router's table emptied, so an
        // address with no neighbour is resolved afresh (3 s, then Host Unreachable for every
        // queued probe) and not met half-way through an earlier run's resolution.
        func run(_ tool: ([String], Namespace, Double) throws -> CommandResult, _ arguments: [String]) throws -> CommandResult {
            try net.router.ip("neigh", "flush", "all")
            return try tool(arguments, net.client, 30)
        }
        for arguments in cases {
            var (ours, theirs) = (try run(self.ping(_:in:timeout:), arguments), try run(self.iputils(_:in:timeout:), arguments))
            // Which ICMP errors reach a run is the kernel's doing, not the tool's: once, under load,
            // one run of a pair got the router's unreachables and the other none. Such a pair is
            // run again (twice at most), so that the shapes are compared on the same answers.
            for _ in 0..<2 where Self.errorLines(ours) != Self.errorLines(theirs) {
                (ours, theirs) = (try run(self.ping(_:in:timeout:), arguments), try run(self.iputils(_:in:timeout:), arguments))
            }
            XCTAssertEqual(ours.status, theirs.status, "\(arguments): \(ours) vs \(theirs)")
            XCTAssertEqual(ours.stdoutLines.map(Self.shape), theirs.stdoutLines.map(Self.shape), "\(arguments)")
        }
    }

    /// How many lines of a run report an ICMP error ("From ... Destination Host Unreachable").
    private static func errorLines(_ run: CommandResult) -> Int {
        run.stdoutLines.filter { $0.hasPrefix("From ") }.count
    }

    func testIputilsOwnTestInvocations() throws {
        // iputils ping/test/meson.build, run with both tools as root on loopback: same pass/fail.
        let ns = try lab.namespace("it")
        var invocations: [[String]] = []
        for destination in ["localhost", "127.0.0.1", "::1"] {
            for family in [[], ["-4"], ["-6"]] { invocations.append(family + ["-c1", destination]) }
        }
        for destination in ["127.0.0.1", "::1"] {
            for options in [
                ["-c1"], ["-c5", "-i0.1"], ["-c1", "-I", "lo"], ["-c1", "-w1"], ["-c1", "-W1"], ["-c1", "-W1.1"],
                ["-c1.1"], ["-I", "nonexisting"], ["-w0.1"], ["-w0,1"], ["-c1", "-i0.001"],
            ] {
                invocations.append(options + [destination])
            }
        }
        for arguments in invocations {
            let ours = try ping(arguments, in: ns, timeout: 15)
            let theirs = try iputils(arguments, in: ns, timeout: 15)
            XCTAssertEqual(ours.status == 0, theirs.status == 0, "\(arguments): reach \(ours) iputils \(theirs)")
        }
        // The one user case of that file: -i below 2 ms fails without privilege.
        try ns.sysctl(["net.ipv4.ping_group_range=0 2147483647"])
        let binary = try binaryForOtherUsers()
        for destination in ["127.0.0.1", "::1"] {
            let ours = try ns.exec(Self.asNobody + [binary, "ping", "-c1", "-i0.001", destination])
            let theirs = try ns.exec(Self.asNobody + ["ping", "-c1", "-i0.001", destination])
            XCTAssertNotEqual(ours.status, 0, "\(ours)")
            XCTAssertNotEqual(theirs.status, 0, "\(theirs)")
        }
    }

    /// -c's largest documented value beside iputils (which takes LONG_MAX too): one target
    /// and two run until -w ends them; one past it is refused in one line.
    func testLargestDocumentedCount() throws {
        let ns = try lab.namespace("count")
        let largest = String(Int.max)
        // One target: iputils' rule with -c and -w, fewer replies than the count by the
        // deadline, exit 1. Two: fping's, every target answered, exit 0.
        let arguments = ["-c", largest, "-w", "1", "-i", "0.2"]
        let ours = try ping(arguments + ["127.0.0.1"], in: ns, timeout: 15)
        let theirs = try iputils(arguments + ["127.0.0.1"], in: ns, timeout: 15)
        XCTAssertEqual(ours.status, theirs.status, "\(ours)\n\(theirs)")
        XCTAssertEqual(ours.status, 1, "\(ours)")
        XCTAssertFalse(ours.stdoutLines.filter { $0.hasPrefix("64 bytes from 127.0.0.1") }.isEmpty, "\(ours)")
        let both = try ping(arguments + ["127.0.0.1", "::1"], in: ns, timeout: 15)
        XCTAssertEqual(both.status, 0, "\(both)")
        XCTAssertEqual(both.stderrLines.filter { $0.contains(" : xmt/rcv/%loss = ") }.count, 2, "\(both)")
        let past = try ping(["-c", "9223372036854775808", "127.0.0.1"], in: ns)
        XCTAssertEqual(past.status, 64, "\(past)")
        XCTAssertEqual(past.stdout, "")
        XCTAssertEqual(past.stderrLines, ["reach: -c: '9223372036854775808' is not a count from 1 to \(largest)"])
    }

    func testBadInputIsOneLineAndExit64() throws {
        let ns = try lab.namespace("bad")
        let cases: [[String]] = [
            ["-c", "0"], ["-c", "-1"], ["-c", "x"], ["-i", "-1"], ["-i", "abc"], ["-W", "-2"], ["-W", "0"], ["-w", "1.5"],
            ["-w", "x"], ["-s", "70000"], ["-t", "0"], ["-t", "256"], ["-I", "nonexisting"], ["--bogus"],
            // A source address this host does not have (bind: EADDRNOTAVAIL) is a mistake, not a failure.
            ["-I", "203.0.113.77"],
        ]
        for arguments in cases.map({ $0 + ["127.0.0.1"] }) + [["-4", "::1"], ["-6", "127.0.0.1"], ["-I", "2001:db8::77", "::1"]] {
            let result = try ping(arguments, in: ns)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
            XCTAssertEqual(result.stderrLines.count, 1, "\(arguments): \(result)")
            XCTAssertTrue(result.stderr.hasPrefix("reach: "), "\(arguments): \(result)")
            if arguments.first == "-I", arguments[1].contains(where: { $0 == "." || $0 == ":" }) {
                XCTAssertTrue(result.stderr.contains("is not an address of this host"), "\(arguments): \(result)")
            }
        }
    }

    // MARK: - Privilege

    func testNobodyWithoutPermissionGetsOneLineAndExit77() throws {
        let ns = try lab.namespace("priv")
        let binary = try binaryForOtherUsers()
        // A fresh namespace has ping_group_range "1 0": no one.
        let result = try ns.exec(Self.asNobody + [binary, "ping", "-c", "1", "127.0.0.1"])
        XCTAssertEqual(result.status, 77, "\(result)")
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderrLines.count, 1, "\(result)")
        let line = result.stderrLines.first ?? ""
        for phrase in [
            "gid 65534", "net.ipv4.ping_group_range \"1 0\"", "CAP_NET_RAW is not permitted",
            "sysctl -w net.ipv4.ping_group_range", "setcap cap_net_raw+p",
        ] {
            XCTAssertTrue(line.contains(phrase), "'\(phrase)' in \(line)")
        }
    }

    func testNobodyUsesTheDatagramSocketWhenTheRangeIsOpen() throws {
        let net = try ChainTopology(lab: lab)
        let binary = try binaryForOtherUsers()
        try net.client.sysctl(["net.ipv4.ping_group_range=0 2147483647"])
        for target in ["198.18.1.2", "2001:db8:1::2", "198.19.9.9"] {
            let result = try net.client.exec(Self.asNobody + [binary, "ping", "-c", "2", "-i", "0.1", "--json", target])
            XCTAssertEqual(events(result, "start").first?["socket"] as? String, "datagram", "\(result)")
            if target == "198.19.9.9" {
                XCTAssertEqual(result.status, 1)
                XCTAssertEqual(events(result, "icmp_error").count, 2, "errors from the error queue: \(result)")
                XCTAssertEqual(events(result, "icmp_error").first?["from"] as? String, "198.18.0.1", "the offender: \(result)")
            } else {
                XCTAssertEqual(result.status, 0, "\(result)")
                XCTAssertEqual(events(result, "reply").count, 2)
            }
        }
        // Below 2 ms needs CAP_NET_RAW, as in iputils.
        let fast = try net.client.exec(Self.asNobody + [binary, "ping", "-c", "1", "-i", "0.001", "198.18.1.2"])
        XCTAssertEqual(fast.status, 77, "\(fast)")
    }

    func testFileCapabilityGivesRawSocketThenDropsEverything() throws {
        let net = try ChainTopology(lab: lab)
        let binary = try binaryForOtherUsers()
        try Subprocess.check(["setcap", "cap_net_raw+p", binary])
        let process = try lab.launch(
            Self.asNobody + [binary, "ping", "-c", "4", "-i", "0.25", "--json", "198.18.1.2"],
            in: net.client, label: "capability")
        // ip netns exec and setpriv exec in place: the pid is reach's once it runs.
        var status = ""
        for _ in 0..<100 {
            usleep(20_000)
            let text = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""
            if text.split(separator: "\n").first(where: { $0.hasPrefix("Name:") })?.hasSuffix("reach") == true {
                usleep(300_000) // well into the run: the socket is open and the capabilities gone
                status = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""
                break
            }
        }
        XCTAssertEqual(process.waitForExit(), 0, process.log)
        XCTAssertEqual(events(process.log, "start").first?["socket"] as? String, "raw", process.log)
        XCTAssertEqual(events(process.log, "reply").count, 4)
        let capabilities = status.split(separator: "\n").filter { $0.hasPrefix("CapEff:") || $0.hasPrefix("CapPrm:") }
        XCTAssertEqual(capabilities.count, 2, "status read while running: \(status)")
        for line in capabilities { XCTAssertTrue(line.hasSuffix("0000000000000000"), "\(line)") }
    }

    func testTwoPingersCountOnlyTheirOwnReplies() throws {
        let net = try ChainTopology(lab: lab)
        let binary = try binaryForOtherUsers()
        // Raw (root) and datagram (nobody, range open) sockets see each other's traffic differently.
        try net.client.sysctl(["net.ipv4.ping_group_range=0 2147483647"])
        let raw = [binary, "ping", "-c", "40", "-i", "0.01", "--json", "198.18.1.2"]
        let datagram = Self.asNobody + raw
        for (index, pair) in [[raw, raw], [datagram, datagram], [raw, datagram]].enumerated() {
            let processes = try pair.enumerated().map { try lab.launch($1, in: net.client, label: "pair\(index)-\($0)") }
            for process in processes {
                XCTAssertEqual(process.waitForExit(), 0, process.log)
                let summary = events(process.log, "summary").first
                XCTAssertEqual(summary?["received"] as? Int, 40, process.log)
                XCTAssertEqual(summary?["duplicates"] as? Int, 0, process.log)
                XCTAssertEqual(events(process.log, "reply").count, 40)
            }
        }
    }
}

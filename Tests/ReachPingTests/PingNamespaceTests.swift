#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// `reach ping` for real, in namespaces the test builds (traffic never leaves them).
final class PingNamespaceTests: PingLabTestCase {
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

    func events(_ run: Run, _ name: String) -> [[String: Any]] {
        run.objects.filter { $0["event"] as? String == name }
    }

    func testLoopbackIPv4AndIPv6() throws {
        let ns = try lab.namespace("lo")
        for target in ["127.0.0.1", "::1"] {
            let result = try reach(["ping", "-c", "3", "-i", "0.1", target], in: ns)
            XCTAssertEqual(result.status, 0, "\(result)")
            XCTAssertEqual(result.stderr, "")
            let replies = result.lines.filter { $0.hasPrefix("64 bytes from \(target): icmp_seq=") }
            XCTAssertEqual(replies.count, 3, "\(result)")
            XCTAssertTrue(result.stdout.contains("3 packets transmitted, 3 received, 0% packet loss"), "\(result)")
            XCTAssertTrue(result.stdout.contains("rtt min/avg/max/mdev = "), "\(result)")
        }
    }

    func testVethPeerIPv4AndIPv6WithJSON() throws {
        let net = try lab.topology()
        for (target, family) in [("198.18.1.2", "ipv4"), ("2001:db8:1::2", "ipv6")] {
            let result = try reach(["ping", "-c", "3", "-i", "0.1", "--json", target], in: net.client)
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
        }
    }

    func testPeerDroppingRequestsTimesOutEachProbe() throws {
        let net = try lab.topology()
        for target in ["198.18.1.3", "2001:db8:1::3"] {
            let json = try reach(["ping", "-c", "3", "-i", "0.2", "-W", "0.5", "--json", target], in: net.client)
            XCTAssertEqual(json.status, 1, "\(json)")
            XCTAssertEqual(events(json, "timeout").map { $0["seq"] as? Int }, [1, 2, 3], "\(json)")
            XCTAssertEqual(events(json, "reply").count, 0)
            let text = try reach(["ping", "-c", "2", "-i", "0.2", "-W", "0.5", target], in: net.client)
            XCTAssertEqual(text.status, 1)
            XCTAssertTrue(text.stdout.contains("2 packets transmitted, 0 received, 100% packet loss"), "\(text)")
        }
    }

    func testRouterUnreachableRouteSendsHostUnreachable() throws {
        let net = try lab.topology()
        let v4 = try reach(["ping", "-c", "3", "-i", "0.1", "198.19.9.9"], in: net.client)
        XCTAssertEqual(v4.status, 1, "\(v4)")
        XCTAssertEqual(v4.lines.filter { $0.hasPrefix("From 198.18.0.1 icmp_seq=") && $0.hasSuffix(" Destination Host Unreachable") }.count,
                       3, "\(v4)")
        XCTAssertTrue(v4.stdout.contains("3 packets transmitted, 0 received, +3 errors, 100% packet loss"), "\(v4)")
        let v6 = try reach(["ping", "-c", "2", "-i", "0.1", "--json", "2001:db8:f1::9"], in: net.client)
        XCTAssertEqual(v6.status, 1)
        let errors = events(v6, "icmp_error")
        XCTAssertEqual(errors.count, 2, "\(v6)")
        XCTAssertEqual(errors.first?["from"] as? String, "2001:db8::1")
        XCTAssertEqual(errors.first?["icmp_type"] as? Int, 1)
        XCTAssertEqual(events(v6, "summary").first?["errors"] as? Int, 2)
    }

    func testTTLOneThroughARouterIsTimeToLiveExceeded() throws {
        let net = try lab.topology()
        let v4 = try reach(["ping", "-c", "2", "-i", "0.1", "-t", "1", "198.18.1.2"], in: net.client)
        XCTAssertEqual(v4.status, 1, "\(v4)")
        XCTAssertEqual(v4.lines.filter { $0 == "From 198.18.0.1 icmp_seq=1 Time to live exceeded" }.count, 1, "\(v4)")
        let v6 = try reach(["ping", "-c", "2", "-i", "0.1", "-t", "1", "2001:db8:1::2"], in: net.client)
        XCTAssertTrue(v6.lines.contains("From 2001:db8::1 icmp_seq=2 Time exceeded: Hop limit"), "\(v6)")
    }

    func testOutputShapesMatchIputils() throws {
        let net = try lab.topology()
        let cases: [[String]] = [["-c", "3", "-i", "0.2", "198.18.1.2"], ["-c", "2", "-i", "0.2", "2001:db8:1::2"],
                                 ["-c", "2", "-i", "0.2", "198.19.9.9"], ["-c", "2", "-i", "0.2", "-t", "1", "198.18.1.2"],
                                 ["-c", "2", "-i", "0.2", "-W", "1", "198.18.1.3"], ["-q", "-c", "2", "-i", "0.2", "198.18.1.2"],
                                 ["-c", "2", "-i", "0.2", "-D", "198.18.1.2"], ["-c", "1", "-s", "100", "198.18.1.2"],
                                 ["-c", "1", "-I", "v0", "198.18.1.2"], ["-c", "1", "-I", "198.18.0.2", "198.18.1.2"],
                                 ["-c", "3", "-i", "0.2", "-O", "-W", "1", "198.18.1.3"]]
        for arguments in cases {
            let ours = try reach(["ping"] + arguments, in: net.client)
            let theirs = try lab.exec(net.client, ["ping"] + arguments)
            XCTAssertEqual(ours.status, theirs.status, "\(arguments): \(ours) vs \(theirs)")
            XCTAssertEqual(ours.lines.map(Self.shape), theirs.lines.map(Self.shape), "\(arguments)")
        }
    }

    func testDuplicatesAreMarkedAndCounted() throws {
        let net = try lab.topology()
        // The router clones each echo request to the far host (nft dup): two replies per probe.
        let rules = """
            table ip rchdup {
              chain pre {
                type filter hook prerouting priority 0;
                ip daddr 198.18.1.2 icmp type echo-request dup to 198.18.1.2
              }
            }
            """
        let path = "/tmp/\(lab.prefix)-dup.nft"
        try rules.write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        XCTAssertEqual(try lab.exec(net.router, ["nft", "-f", path]).status, 0)
        let arguments = ["-c", "3", "-i", "0.2", "198.18.1.2"]
        let ours = try reach(["ping"] + arguments, in: net.client)
        XCTAssertEqual(ours.status, 0, "\(ours)")
        XCTAssertEqual(ours.lines.filter { $0.hasSuffix(" (DUP!)") }.count, 2, "the run ends at the third reply: \(ours)")
        XCTAssertTrue(ours.stdout.contains("3 packets transmitted, 3 received, +2 duplicates, 0% packet loss"), "\(ours)")
        let theirs = try lab.exec(net.client, ["ping"] + arguments)
        XCTAssertEqual(ours.lines.map(Self.shape), theirs.lines.map(Self.shape))
        let json = try reach(["ping", "--json"] + arguments, in: net.client)
        XCTAssertEqual(events(json, "reply").map { $0["duplicate"] as? Bool }, [false, true, false, true, false])
        XCTAssertEqual(events(json, "summary").first?["duplicates"] as? Int, 2)
    }

    func testFirewallRefusalIsASendErrorNotAFailure() throws {
        let net = try lab.topology()
        // netfilter dropping our own output makes sendto fail with EPERM: a verdict, counted.
        let rules = """
            table ip rchout {
              chain out {
                type filter hook output priority 0;
                ip daddr 198.18.1.2 icmp type echo-request drop
              }
            }
            """
        let path = "/tmp/\(lab.prefix)-out.nft"
        try rules.write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        XCTAssertEqual(try lab.exec(net.client, ["nft", "-f", path]).status, 0)
        let result = try reach(["ping", "-c", "2", "-i", "0.1", "--json", "198.18.1.2"], in: net.client)
        XCTAssertEqual(result.status, 1, "\(result)")
        XCTAssertEqual(events(result, "send_failed").map { $0["errno"] as? Int }, [1, 1], "\(result)")
        XCTAssertEqual(events(result, "summary").first?["errors"] as? Int, 2)
        let text = try reach(["ping", "-c", "1", "198.18.1.2"], in: net.client)
        XCTAssertEqual(text.status, 1)
        XCTAssertEqual(text.stderr, "reach: icmp_seq=1: sendto: Operation not permitted\n")
    }

    func testNamesResolveOrExit2() throws {
        let ns = try lab.namespace("dns")
        // `ip netns exec` puts /etc/netns/NS/resolv.conf over /etc/resolv.conf: a resolver
        // on the namespace's own loopback where nothing listens, so no query leaves it.
        let directory = "/etc/netns/\(ns)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        lab.onTearDown { try? FileManager.default.removeItem(atPath: directory) }
        try "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n".write(toFile: directory + "/resolv.conf", atomically: true,
                                                                        encoding: .utf8)
        let unknown = try reach(["ping", "-c", "1", "no-such-host.invalid"], in: ns)
        XCTAssertEqual(unknown.status, 2, "\(unknown)")
        XCTAssertEqual(unknown.stdout, "")
        XCTAssertTrue(unknown.stderr.hasPrefix("reach: no-such-host.invalid: "), "\(unknown)")
        // localhost comes from /etc/hosts: the name is shown as iputils shows it.
        let local = try reach(["ping", "-c", "1", "-4", "localhost"], in: ns)
        XCTAssertEqual(local.status, 0, "\(local)")
        XCTAssertEqual(local.lines.first, "PING localhost (127.0.0.1) 56(84) bytes of data.")
        XCTAssertTrue(local.lines.contains { $0.hasPrefix("64 bytes from localhost (127.0.0.1): icmp_seq=1 ttl=64 time=") }, "\(local)")
        XCTAssertTrue(local.stdout.contains("--- localhost ping statistics ---"))
    }

    func testDeadline() throws {
        let net = try lab.topology()
        let started = Date()
        let silent = try reach(["ping", "-w", "1", "-i", "0.2", "198.18.1.3"], in: net.client)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(silent.status, 1, "\(silent)")
        XCTAssertLessThan(elapsed, 2.5, "the deadline is honoured")
        XCTAssertTrue(silent.stdout.contains(" 0 received, 100% packet loss"), "\(silent)")
        // With -c and -w both, success needs count replies.
        let answered = try reach(["ping", "-c", "2", "-w", "3", "-i", "0.2", "198.18.1.2"], in: net.client)
        XCTAssertEqual(answered.status, 0, "\(answered)")
    }

    func testIPv6LinkLocalWithZone() throws {
        let net = try lab.topology()
        let show = try lab.exec(net.router, ["ip", "-6", "-o", "addr", "show", "dev", "r0", "scope", "link"])
        let field = show.stdout.split(separator: " ").first { $0.hasPrefix("fe80:") }
        let linkLocal = try XCTUnwrap(field?.split(separator: "/").first.map(String.init), "\(show)")
        let result = try reach(["ping", "-c", "2", "-i", "0.1", "\(linkLocal)%v0"], in: net.client)
        XCTAssertEqual(result.status, 0, "\(result)")
        XCTAssertEqual(result.lines.filter { $0.hasPrefix("64 bytes from \(linkLocal)%v0: icmp_seq=") }.count, 2, "\(result)")
        let unknownZone = try reach(["ping", "-c", "1", "\(linkLocal)%nosuchif"], in: net.client)
        XCTAssertEqual(unknownZone.status, 64, "\(unknownZone)")
    }

    func testIputilsOwnTestInvocations() throws {
        // iputils ping/test/meson.build, run with both tools as root on loopback; same pass/fail.
        let ns = try lab.namespace("it")
        var invocations: [[String]] = []
        for destination in ["localhost", "127.0.0.1", "::1"] {
            for family in [[], ["-4"], ["-6"]] { invocations.append(family + ["-c1", destination]) }
        }
        for destination in ["127.0.0.1", "::1"] {
            for options in [["-c1"], ["-c5", "-i0.1"], ["-c1", "-I", "lo"], ["-c1", "-w1"], ["-c1", "-W1"], ["-c1", "-W1.1"],
                            ["-c1.1"], ["-I", "nonexisting"], ["-w0.1"], ["-w0,1"], ["-c1", "-i0.001"]] {
                invocations.append(options + [destination])
            }
        }
        for arguments in invocations {
            let ours = try reach(["ping"] + arguments, in: ns, timeout: 15)
            let theirs = try lab.exec(ns, ["ping"] + arguments, timeout: 15)
            XCTAssertEqual(ours.status == 0, theirs.status == 0, "\(arguments): reach \(ours) iputils \(theirs)")
        }
    }

    func testBadInputIsOneLineAndExit64() throws {
        let ns = try lab.namespace("bad")
        let cases: [[String]] = [["-c", "0"], ["-c", "-1"], ["-c", "x"], ["-i", "-1"], ["-i", "abc"], ["-W", "-2"], ["-W", "0"],
                                 ["-w", "1.5"], ["-w", "x"], ["-s", "70000"], ["-t", "0"], ["-t", "256"], ["-I", "nonexisting"],
                                 ["--bogus"], ["-4", "::1"]]
        for arguments in cases {
            let target = arguments == ["-4", "::1"] ? [] : ["127.0.0.1"]
            let result = try reach(["ping"] + arguments + target, in: ns)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments): \(result)")
            XCTAssertTrue(result.stderr.hasPrefix("reach: "), "\(arguments): \(result)")
        }
    }

    func testInterruptPrintsStatistics() throws {
        let ns = try lab.namespace("int")
        let process = try start(["ip", "netns", "exec", ns, ReachUnderTest.path, "ping", "-i", "0.1", "127.0.0.1"])
        usleep(450_000)
        kill(process.pid, SIGINT)
        let result = process.finish()
        XCTAssertEqual(result.status, 0, "\(result)")
        XCTAssertTrue(result.stdout.contains("--- 127.0.0.1 ping statistics ---"), "\(result)")
        XCTAssertTrue(result.stdout.contains("rtt min/avg/max/mdev"), "\(result)")
    }

    // MARK: - Privilege

    func testNobodyWithoutPermissionGetsOneLineAndExit77() throws {
        let ns = try lab.namespace("priv")
        let binary = try ReachUnderTest.copyForOtherUsers()
        defer { try? FileManager.default.removeItem(atPath: (binary as NSString).deletingLastPathComponent) }
        // A fresh namespace has ping_group_range "1 0": no one.
        let result = try reachAsNobody(binary, ["ping", "-c", "1", "127.0.0.1"], in: ns)
        XCTAssertEqual(result.status, 77, "\(result)")
        XCTAssertEqual(result.stdout, "")
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "\(result)")
        let line = String(lines.first ?? "")
        for phrase in ["gid 65534", "net.ipv4.ping_group_range \"1 0\"", "CAP_NET_RAW is not permitted",
                       "sysctl -w net.ipv4.ping_group_range", "setcap cap_net_raw+p"] {
            XCTAssertTrue(line.contains(phrase), "'\(phrase)' in \(line)")
        }
    }

    func testNobodyUsesTheDatagramSocketWhenTheRangeIsOpen() throws {
        let net = try lab.topology()
        let binary = try ReachUnderTest.copyForOtherUsers()
        defer { try? FileManager.default.removeItem(atPath: (binary as NSString).deletingLastPathComponent) }
        try lab.sysctl(net.client, "net.ipv4.ping_group_range=0 2147483647")
        for target in ["198.18.1.2", "2001:db8:1::2", "198.19.9.9"] {
            let result = try reachAsNobody(binary, ["ping", "-c", "2", "-i", "0.1", "--json", target], in: net.client)
            XCTAssertEqual(events(result, "start").first?["socket"] as? String, "datagram", "\(result)")
            if target == "198.19.9.9" {
                XCTAssertEqual(result.status, 1)
                XCTAssertEqual(events(result, "icmp_error").count, 2, "errors from the error queue: \(result)")
            } else {
                XCTAssertEqual(result.status, 0, "\(result)")
                XCTAssertEqual(events(result, "reply").count, 2)
            }
        }
        // Below 2 ms needs CAP_NET_RAW, as in iputils.
        let fast = try reachAsNobody(binary, ["ping", "-c", "1", "-i", "0.001", "198.18.1.2"], in: net.client)
        XCTAssertEqual(fast.status, 77, "\(fast)")
    }

    func testFileCapabilityGivesRawSocketThenDropsEverything() throws {
        let net = try lab.topology()
        let binary = try ReachUnderTest.copyForOtherUsers()
        defer { try? FileManager.default.removeItem(atPath: (binary as NSString).deletingLastPathComponent) }
        try ReachPingTests.run(["setcap", "cap_net_raw+p", binary], check: true)
        let process = try start(["ip", "netns", "exec", net.client, "setpriv", "--reuid", "nobody", "--regid", "nogroup",
                                 "--clear-groups", binary, "ping", "-c", "4", "-i", "0.25", "--json", "198.18.1.2"])
        // ip netns exec and setpriv exec in place: the pid is reach's once it runs.
        var status = ""
        for _ in 0..<100 {
            usleep(20_000)
            let text = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""
            let name = text.split(separator: "\n").first { $0.hasPrefix("Name:") } ?? ""
            if name.hasSuffix("reach") {
                usleep(300_000) // well into the run: the socket is open and the capabilities gone
                status = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""
                break
            }
        }
        let result = process.finish()
        XCTAssertEqual(result.status, 0, "\(result)")
        XCTAssertEqual(events(result, "start").first?["socket"] as? String, "raw", "\(result)")
        XCTAssertEqual(events(result, "reply").count, 4)
        let capabilities = status.split(separator: "\n").filter { $0.hasPrefix("CapEff:") || $0.hasPrefix("CapPrm:") }
        XCTAssertEqual(capabilities.count, 2, "status read while running: \(status)")
        for line in capabilities { XCTAssertTrue(line.hasSuffix("0000000000000000"), "\(line)") }
    }

    func testTwoPingersCountOnlyTheirOwnReplies() throws {
        let net = try lab.topology()
        let binary = try ReachUnderTest.copyForOtherUsers()
        defer { try? FileManager.default.removeItem(atPath: (binary as NSString).deletingLastPathComponent) }
        // Raw (root) and datagram (nobody, range open): both see each other's traffic differently.
        try lab.sysctl(net.client, "net.ipv4.ping_group_range=0 2147483647")
        let rawCommand = ["ip", "netns", "exec", net.client, binary, "ping", "-c", "40", "-i", "0.01", "--json", "198.18.1.2"]
        let datagramCommand = ["ip", "netns", "exec", net.client, "setpriv", "--reuid", "nobody", "--regid", "nogroup",
                               "--clear-groups", binary, "ping", "-c", "40", "-i", "0.01", "--json", "198.18.1.2"]
        for pair in [[rawCommand, rawCommand], [datagramCommand, datagramCommand], [rawCommand, datagramCommand]] {
            let processes = try pair.map { try start($0) }
            for result in processes.map({ $0.finish() }) {
                XCTAssertEqual(result.status, 0, "\(result)")
                let summary = events(result, "summary").first
                XCTAssertEqual(summary?["received"] as? Int, 40, "\(result)")
                XCTAssertEqual(summary?["duplicates"] as? Int, 0, "\(result)")
                XCTAssertEqual(events(result, "reply").count, 40)
            }
        }
    }
}

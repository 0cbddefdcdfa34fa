import Foundation
import XCTest

/// `reach ping A B C ...` beside fping 5.1 on the same lab network: a target that answers
/// (two, one of each family), one that never answers (the far end drops its echoes), and
/// one whose router answers ICMP Host Unreachable (nftables' reject).
final class FanoutPingTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-fan-" }
    var net: LabTopology!

    static let answering = "198.18.1.2"
    static let answering6 = "2001:db8:1::2"
    static let silent = "198.18.1.3"
    static let rejected = "198.18.1.4"
    static let targets = [answering, silent, rejected, answering6]

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["fping", "nft", "setpriv"])
        net = try LabTopology(lab: lab, attachTun: false)
        try net.addSilentTarget(Self.silent)
        // The router refuses to forward to the rejected address, as a router with no way there would.
        try lab.nft(in: net.router, name: "reject", """
            table inet reach_test {
              chain forward { type filter hook forward priority 0; ip daddr \(Self.rejected) reject with icmp type host-unreachable; }
            }
            """)
        try net.router.sysctl(["net.ipv4.icmp_ratelimit=0"])
        try net.client.waitForPingReplies(from: [Self.answering, Self.answering6], what: "the far end")
    }

    /// The per-target counters of `reach ping -c 3 -q` and `fping -c 3 -q` at the same
    /// interval and period: xmt/rcv/%loss equal for every target, min/avg/max present
    /// exactly when fping has them; the same exit status.
    func testSummariesMatchFping() throws {
        for socket in ["raw", "datagram"] {
            if socket == "datagram" { try net.client.sysctl(["net.ipv4.ping_group_range=0 2147483647"]) }
            let reach = try ReachBinary.run(["ping", "-c", "3", "-q", "-i", "0.01", "--period", "0.2"] + Self.targets, in: net.client)
            let fping = try net.client.exec(["fping", "-c", "3", "-q", "-i", "10", "-p", "200"] + Self.targets)
            XCTAssertEqual(reach.status, 1, "\(socket): some targets did not answer: \(reach)")
            XCTAssertEqual(reach.status, fping.status, "\(socket): \(fping)")
            XCTAssertEqual(reach.stdout, "", "\(socket): -q prints no per-probe lines")
            XCTAssertEqual(Self.counters(reach.stderrLines), Self.counters(fping.stderrLines), "\(socket): \(reach)\n\(fping)")
            let padded = Self.targets.map { $0.padding(toLength: 13, withPad: " ", startingAt: 0) }
            XCTAssertEqual(
                Self.counters(reach.stderrLines),
                [padded[0] + " | 3/3/0% | times", padded[1] + " | 3/0/100%", padded[2] + " | 3/0/100%", padded[3] + " | 3/3/0% | times"],
                "\(socket)")
        }
    }

    /// Without -q: a line per reply and per timeout in fping's words on stdout, the router's
    /// Host Unreachable on stderr as fping words it, each counted as a loss.
    func testLinesMatchFping() throws {
        let arguments = ["-c", "2", "-i", "0.01", "--period", "0.2"]
        let reach = try ReachBinary.run(["ping"] + arguments + Self.targets, in: net.client)
        let fping = try net.client.exec(["fping", "-c", "2", "-i", "10", "-p", "200"] + Self.targets)
        XCTAssertEqual(Self.shapes(reach.stdoutLines), Self.shapes(fping.stdoutLines), "\(reach)\n\(fping)")
        let unreachable = "ICMP Host Unreachable from 198.18.0.1 for ICMP Echo sent to \(Self.rejected)"
        XCTAssertEqual(reach.stderrLines.filter { $0.hasPrefix("ICMP") }, [unreachable, unreachable], "\(reach)")
        XCTAssertEqual(fping.stderrLines.filter { $0.hasPrefix("ICMP") }, [unreachable, unreachable], "\(fping)")
        XCTAssertTrue(reach.stderrLines.contains("\(Self.rejected)    : xmt/rcv/%loss = 2/0/100%"), "\(reach)")
        XCTAssertTrue(reach.stdoutLines.contains("\(Self.silent)    : [1], timed out (NaN avg, 100% loss)"), "\(reach)")
    }

    /// fping's default mode (no -c): "is alive" / "is unreachable", and -a / -u as
    /// --alive / --unreachable; the exit status as fping's.
    func testAliveAndUnreachableAsFping() throws {
        let targets = [Self.answering, Self.silent, Self.answering6]
        let plain = try ReachBinary.run(["ping", "-W", "0.2"] + targets, in: net.client)
        let fping = try net.client.exec(["fping", "-t", "200"] + targets)
        XCTAssertEqual(Set(plain.stdoutLines), Set(fping.stdoutLines), "\(plain)\n\(fping)")
        XCTAssertEqual(plain.status, 1)
        XCTAssertEqual(fping.status, 1)
        let alive = try ReachBinary.run(["ping", "-W", "0.2", "--alive"] + targets, in: net.client)
        XCTAssertEqual(Set(alive.stdoutLines), [Self.answering, Self.answering6], "\(alive)")
        let unreachable = try ReachBinary.run(["ping", "-W", "0.2", "--unreachable", "-q"] + targets, in: net.client)
        XCTAssertEqual(unreachable.stdoutLines, [Self.silent], "\(unreachable)")
        let all = try ReachBinary.run(["ping", "-W", "0.2", Self.answering, Self.answering6], in: net.client)
        XCTAssertEqual(all.status, 0, "\(all)")
    }

    /// --each-rtt as fping -C: each probe's time, `-` for a loss; --json names each target.
    func testEachRoundTripAndJSON() throws {
        let each = try ReachBinary.run(
            ["ping", "-c", "2", "-q", "--each-rtt", "--period", "0.2", Self.answering, Self.silent], in: net.client)
        let fping = try net.client.exec(["fping", "-C", "2", "-q", "-p", "200", Self.answering, Self.silent])
        XCTAssertEqual(each.stderrLines.count, 2, "\(each)")
        XCTAssertTrue(each.stderrLines[1] == "\(Self.silent) : - -", "\(each)")
        XCTAssertEqual(fping.stderrLines.last, "\(Self.silent) : - -", "\(fping)")
        XCTAssertEqual(each.stderrLines[0].split(separator: " ").count, 4, "\(each)")

        let result = try ReachBinary.run(["ping", "-c", "2", "--json", "--period", "0.2"] + Self.targets, in: net.client)
        XCTAssertEqual(result.status, 1)
        let events = try result.stdoutLines.map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        for event in events {
            XCTAssertEqual(event["schema"] as? Int, 1)
            XCTAssertEqual(event["command"] as? String, "ping")
        }
        func of(_ kind: String) -> [[String: Any]] { events.filter { $0["event"] as? String == kind } }
        XCTAssertEqual(of("reply").count, 4, "two replies from each answering target")
        XCTAssertEqual(Set(of("reply").compactMap { $0["target"] as? String }), [Self.answering, Self.answering6])
        XCTAssertEqual(of("icmp_error").compactMap { $0["text"] as? String }, ["ICMP Host Unreachable", "ICMP Host Unreachable"])
        XCTAssertEqual(of("icmp_error").compactMap { $0["from"] as? String }, ["198.18.0.1", "198.18.0.1"])
        let summaries = of("summary")
        XCTAssertEqual(summaries.compactMap { $0["target"] as? String }, Self.targets)
        XCTAssertEqual(summaries.compactMap { $0["received"] as? Int }, [2, 0, 0, 2])
        XCTAssertEqual(summaries.compactMap { $0["transmitted"] as? Int }, [2, 2, 2, 2])
        XCTAssertEqual(summaries.compactMap { $0["alive"] as? Bool }, [true, false, false, true])
        let end = try XCTUnwrap(of("end").first)
        XCTAssertEqual(end["targets"] as? Int, 4)
        XCTAssertEqual(end["alive"] as? Int, 2)
        XCTAssertEqual(end["exit_status"] as? Int, 1)
        XCTAssertEqual(events.last?["event"] as? String, "end")
        // One precision, the whole microsecond, in every reply and summary (as one target's).
        let figures = JSONLines.roundTrips(events)
        XCTAssertEqual(figures.filter { $0.event == "reply" }.count, 4)
        XCTAssertEqual(figures.filter { $0.event == "summary" }.count, 2 * 3, "min, avg, max of the two that answered")
        for figure in figures { XCTAssertTrue(JSONLines.isWholeMicroseconds(figure.milliseconds), "\(figure)") }
    }

    /// --generate lists the host addresses of a prefix as fping -g does (no network or
    /// broadcast address), and the counters agree.
    func testGenerateAsFping() throws {
        let reach = try ReachBinary.run(["ping", "-c", "1", "-q", "-W", "0.3", "--generate", "198.18.1.0/29"], in: net.client)
        let fping = try net.client.exec(["fping", "-c", "1", "-q", "-t", "300", "-g", "198.18.1.0/29"])
        XCTAssertEqual(Self.counters(reach.stderrLines), Self.counters(fping.stderrLines), "\(reach)\n\(fping)")
        XCTAssertEqual(Self.counters(reach.stderrLines).count, 6, "198.18.1.1 to .6")
        XCTAssertEqual(reach.status, fping.status)
    }

    /// A list that holds one target still runs fping's model: without -c, fping's default
    /// mode says "is alive" and ends, as `fping -g` of a /32 does, instead of an iputils
    /// ping that runs until interrupted.
    func testOneTargetListRunsFpingsModel() throws {
        let list = try lab.script("one-target", "\(Self.answering)\n")
        for words in [["--generate", "\(Self.answering)/32"], ["--targets-from", list]] {
            let reach = try ReachBinary.run(["ping"] + words, in: net.client, timeout: 10)
            let fping = try net.client.exec(["fping", "-g", "\(Self.answering)/32"])
            XCTAssertEqual(reach.status, 0, "\(words): \(reach)")
            XCTAssertEqual(reach.stdoutLines, ["\(Self.answering) is alive"], "\(words): \(reach)")
            XCTAssertEqual(reach.stdoutLines, fping.stdoutLines, "\(words): \(fping)")
        }
    }

    /// SIGINT ends the run with the summaries of what was counted, exit status by fping's
    /// rule (every target answered: 0).
    func testInterruptPrintsTheSummaries() throws {
        let process = try lab.launch(
            [ReachBinary.path, "ping", "-c", "1000", "--period", "0.1", Self.answering, Self.answering6], in: net.client, label: "sigint")
        for _ in 0..<500 where !process.log.contains("[2], 64 bytes") { usleep(10_000) }
        kill(process.pid, SIGINT)
        XCTAssertEqual(process.waitForExit(), 0, process.log)
        let summaries = Self.counters(process.log.split(separator: "\n").map(String.init))
        XCTAssertEqual(summaries.count, 2, process.log)
        XCTAssertTrue(summaries.allSatisfy { $0.hasSuffix("/0% | times") }, process.log)
    }

    /// Each reply line leaves when it is made, to a pipe too: the reader has the first line
    /// seconds before the run ends (its end of file), not at the end in one block.
    func testLinesReachAPipeAsTheyCome() throws {
        // The reader stamps the first line's arrival and the end of file (seconds, monotonic).
        let reader = "read -r first; a=$(cut -d' ' -f1 /proc/uptime); cat >/dev/null; b=$(cut -d' ' -f1 /proc/uptime); "
            + "echo \"$first\"; echo \"$a $b\""
        let command = "'\(ReachBinary.path)' ping -c 4 --period 1 \(Self.answering) \(Self.answering6) | { \(reader); }"
        let result = try net.client.exec(["sh", "-c", command], timeout: 20)
        XCTAssertEqual(result.stdoutLines.count, 2, "\(result)")
        XCTAssertTrue(result.stdoutLines.first?.contains(" : [0], 64 bytes") == true, "\(result.stdout)")
        let stamps = (result.stdoutLines.last ?? "").split(separator: " ").compactMap { Double($0) }
        XCTAssertEqual(stamps.count, 2, "\(result)")
        if stamps.count == 2 { XCTAssertGreaterThan(stamps[1] - stamps[0], 2, "three periods passed after the first reply: \(result)") }
    }

    /// A reader that goes away ends the run, as for one target and as fping's SIGPIPE does:
    /// `--loop A B | head -1` ends at the next line, not never.
    func testEndsWhenTheReaderGoesAway() throws {
        let targets = "\(Self.answering) \(Self.answering6)"
        let ours = try net.client.exec(["sh", "-c", "'\(ReachBinary.path)' ping --loop \(targets) | head -1"], timeout: 10)
        let theirs = try net.client.exec(["sh", "-c", "fping -l \(targets) | head -1"], timeout: 10)
        for result in [ours, theirs] {
            XCTAssertFalse(result.timedOut, "\(result)")
            XCTAssertLessThan(result.duration, 1, "within a second: \(result)")
            XCTAssertEqual(result.stdoutLines.count, 1, "\(result)")
            XCTAssertTrue(result.stdout.contains(" : [0], 64 bytes"), "\(result.stdout)")
        }
        let counted = try net.client.exec(["sh", "-c", "'\(ReachBinary.path)' ping -c 10 \(targets) | head -1"], timeout: 20)
        XCTAssertLessThan(counted.duration, 1, "-c 10 ends with its reader, not after ten periods: \(counted)")
    }

    /// Bad lists: one `reach:` line, exit 64, and not one echo sent.
    func testBadInputSendsNothing() throws {
        let before = try net.client.icmpCounter("OutEchos")
        let empty = try lab.script("empty.txt", "\n# none\n")
        let long = try lab.script("long.txt", (0..<100_000).map { "198.18.\($0 / 250 % 250).\($0 % 250 + 1)\n" }.joined())
        let notUTF8 = "\(lab.directory)/bytes.txt"
        try Data("198.18.1.2\n".utf8 + [0xc3, 0x28, 0x0a]).write(to: URL(fileURLWithPath: notUTF8))
        for (arguments, says) in [
            (["ping", "--targets-from", empty], "no targets"),
            (["ping", "-c", "1", "--targets-from", long], "more than 65536 targets"),
            (["ping", "--targets-from", notUTF8], "line 2 is not valid UTF-8"),
            (["ping", "--generate", "198.18.0.0/15"], "more than 65536 host addresses"),
            (["ping", "-c", "1", Self.answering, "db internal"], "space"),
        ] {
            let result = try ReachBinary.run(arguments, in: net.client)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result)")
            XCTAssertEqual(result.stdout, "")
            XCTAssertEqual(result.stderrLines.count, 1, "\(result)")
            XCTAssertTrue(result.stderr.hasPrefix("reach: ") && result.stderr.contains(says), "\(arguments): \(result)")
        }
        XCTAssertEqual(try net.client.icmpCounter("OutEchos"), before, "nothing sent")
    }

    /// Without ICMP permission: the one line single-host ping gives, exit 77, nothing sent;
    /// with the datagram socket allowed, nobody pings many targets as root does.
    func testNobodyWithoutPermissionGetsExit77() throws {
        let binary = try binaryForOtherUsers()
        try net.client.sysctl(["net.ipv4.ping_group_range=1 0"])
        let denied = try net.client.exec(Self.asNobody + [binary, "ping", "-c", "1", Self.answering, Self.answering6])
        XCTAssertEqual(denied.status, 77, "\(denied)")
        XCTAssertEqual(denied.stdout, "")
        XCTAssertEqual(denied.stderrLines.count, 1, "\(denied)")
        XCTAssertTrue(denied.stderr.hasPrefix("reach: ") && denied.stderr.contains("setcap cap_net_raw+p"), "\(denied)")
        try net.client.sysctl(["net.ipv4.ping_group_range=0 2147483647"])
        let allowed = try net.client.exec(
            Self.asNobody + [binary, "ping", "-c", "1", "-q", "-i", "0.01", Self.answering, Self.answering6])
        XCTAssertEqual(allowed.status, 0, "\(allowed)")
    }

    /// "name as padded | xmt/rcv/%loss | times" (times when min/avg/max follows) per summary line.
    static func counters(_ lines: [String]) -> [String] {
        lines.compactMap { line in
            guard let range = line.range(of: " : xmt/rcv/%loss = ") else { return nil }
            let rest = line[range.upperBound...]
            let counts = rest.split(separator: ",").first.map(String.init) ?? ""
            return String(line[..<range.lowerBound]) + " | " + counts + (rest.contains(", min/avg/max = ") ? " | times" : "")
        }
    }

    /// Per-probe lines with the times left out, sorted: `198.18.1.2 : [0], 64 bytes, _ ms (_ avg, 0% loss)`.
    static func shapes(_ lines: [String]) -> [String] {
        lines.map { line in
            line.replacingOccurrences(of: #"[0-9]+\.[0-9]+ (ms|avg)"#, with: "_ $1", options: .regularExpression)
        }.sorted()
    }
}

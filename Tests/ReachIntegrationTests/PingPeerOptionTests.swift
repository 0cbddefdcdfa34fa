import Foundation
import XCTest

/// The options users of iputils ping and fping reach for first, run beside the peer on the
/// same lab network with the same option, output compared line for line (times masked):
/// fping's -g START END, -e, -s, -l and -Q.
final class PingPeerOptionTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-peer-" }
    private var net: LabTopology!

    static let answering = "198.18.1.2"
    static let answering6 = "2001:db8:1::2"
    static let silent = "198.18.1.3"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["fping", "nft"])
        net = try LabTopology(lab: lab, attachTun: false)
        try net.addSilentTarget(Self.silent)
        try net.router.sysctl(["net.ipv4.icmp_ratelimit=0", "net.ipv6.icmp.ratelimit=0"])
        try net.client.waitForPingReplies(from: [Self.answering, Self.answering6], what: "the far end")
    }

    // MARK: - fping

    /// --generate START END lists the addresses of the range, both ends included, as fping
    /// -g START END does; the counters and the default mode's lines agree.
    func testGenerateRangeAsFping() throws {
        let reach = try ReachBinary.run(["ping", "-c", "1", "-q", "-W", "0.3", "--generate", "198.18.1.1", "198.18.1.3"], in: net.client)
        let fping = try net.client.exec(["fping", "-c", "1", "-q", "-t", "300", "-g", "198.18.1.1", "198.18.1.3"])
        XCTAssertEqual(Self.masked(reach.stderrLines), Self.masked(fping.stderrLines), "\(reach)\n\(fping)")
        XCTAssertEqual(reach.stderrLines.count, 3, "\(reach)")
        XCTAssertEqual(reach.status, 1)
        XCTAssertEqual(fping.status, 1)
        let alive = try ReachBinary.run(["ping", "-W", "0.3", "--generate", "198.18.1.1", "198.18.1.3"], in: net.client)
        let alivePeer = try net.client.exec(["fping", "-t", "300", "-g", "198.18.1.1", "198.18.1.3"])
        XCTAssertEqual(alive.stdoutLines.sorted(), alivePeer.stdoutLines.sorted(), "\(alive)\n\(alivePeer)")
    }

    /// --elapsed as fping -e: the round trip on each alive line, plain and with --alive (-a).
    func testElapsedAsFping() throws {
        let targets = [Self.answering, Self.silent, Self.answering6]
        for (words, fpingWords) in [([String](), [String]()), (["--alive"], ["-a"])] {
            let reach = try ReachBinary.run(["ping", "-W", "0.3", "--elapsed"] + words + targets, in: net.client)
            let fping = try net.client.exec(["fping", "-t", "300", "-e"] + fpingWords + targets)
            XCTAssertEqual(Self.masked(reach.stdoutLines).sorted(), Self.masked(fping.stdoutLines).sorted(), "\(reach)\n\(fping)")
            XCTAssertTrue(reach.stdoutLines.contains { $0.hasPrefix(Self.answering) && $0.hasSuffix(" ms)") }, "\(reach)")
            XCTAssertEqual(reach.status, 1)
        }
    }

    /// --stats as fping -s: the run's totals on stderr after the per-target summaries, in
    /// fping's layout, equal counts (times masked), in count mode and in the default mode.
    func testStatsAsFping() throws {
        let targets = [Self.answering, Self.silent, Self.answering6]
        let runs: [([String], [String])] = [
            (["-c", "2", "-q", "--period", "0.2"], ["-c", "2", "-q", "-p", "200"]),
            (["-W", "0.2"], ["-t", "200"]),
        ]
        for (words, fpingWords) in runs {
            let reach = try ReachBinary.run(["ping", "--stats"] + words + targets, in: net.client)
            let fping = try net.client.exec(["fping", "-s"] + fpingWords + targets)
            XCTAssertEqual(Self.masked(reach.stderrLines), Self.masked(fping.stderrLines), "\(reach)\n\(fping)")
            XCTAssertTrue(reach.stderrLines.contains("       3 targets"), "\(reach)")
            XCTAssertTrue(reach.stderrLines.contains("       2 alive"), "\(reach)")
            XCTAssertEqual(reach.status, fping.status)
        }
    }

    /// --loop as fping -l: a line per probe until SIGINT, then the summaries; the same lines
    /// (times and probe numbers masked) and exit status as fping's.
    func testLoopAsFping() throws {
        let targets = [Self.answering, Self.silent]
        let reach = try lab.launch([ReachBinary.path, "ping", "--loop", "--period", "0.2"] + targets, in: net.client, label: "reach-loop")
        let fping = try lab.launch(["fping", "-l", "-p", "200"] + targets, in: net.client, label: "fping-loop")
        for process in [reach, fping] {
            for _ in 0..<500 where !process.log.contains("[3], timed out") { usleep(10_000) }
            kill(process.pid, SIGINT)
        }
        XCTAssertEqual(reach.waitForExit(), 1, reach.log)
        XCTAssertEqual(fping.waitForExit(), 1, fping.log)
        // Probe numbers and counters masked too: how many probes went before SIGINT depends on timing.
        func lines(_ log: String) -> Set<String> {
            Set(
                Self.masked(log.split(separator: "\n").map(String.init)).map { line in
                    line.replacingOccurrences(of: #"\[[0-9]+\]"#, with: "[_]", options: .regularExpression)
                        .replacingOccurrences(of: #"= [0-9]+/[0-9]+/[0-9]+%"#, with: "= n/n/n%", options: .regularExpression)
                })
        }
        XCTAssertEqual(lines(reach.log), lines(fping.log), "\(reach.log)\n\(fping.log)")
        XCTAssertTrue(reach.log.contains("\(Self.silent) : xmt/rcv/%loss = "), reach.log)
    }

    /// --squiet as fping -Q: no per-probe lines; every interval a `[HH:MM:SS]` line and each
    /// target's counters since the last report, on stderr; the run's summaries at the end.
    func testIntervalSummariesAsFping() throws {
        let targets = [Self.answering, Self.silent]
        let reach = try ReachBinary.run(["ping", "-c", "4", "--squiet", "0.4", "--period", "0.25"] + targets, in: net.client)
        let fping = try net.client.exec(["fping", "-c", "4", "-Q", "0.4", "-p", "250"] + targets)
        XCTAssertEqual(reach.stdout, "", "\(reach)")
        // Each report's shape, the counts left out: how many probes fall in an interval depends on timing.
        func shapes(_ lines: [String]) -> Set<String> {
            Set(lines.map { line in
                line.replacingOccurrences(of: #"^\[[0-9]{2}:[0-9]{2}:[0-9]{2}\]$"#, with: "[time]", options: .regularExpression)
                    .replacingOccurrences(of: #"[0-9]+\.[0-9]+"#, with: "_", options: .regularExpression)
                    .replacingOccurrences(of: #"= [0-9]+/[0-9]+/[0-9]+%"#, with: "= n/n/n%", options: .regularExpression)
            })
        }
        XCTAssertEqual(shapes(reach.stderrLines), shapes(fping.stderrLines), "\(reach)\n\(fping)")
        let clock = #"^\[[0-9]{2}:[0-9]{2}:[0-9]{2}\]$"#
        XCTAssertTrue(reach.stderrLines.contains { $0.range(of: clock, options: .regularExpression) != nil }, "\(reach)")
        // The last lines are the run's summaries, the same as fping's.
        XCTAssertEqual(
            Self.masked(Array(reach.stderrLines.suffix(2))), Self.masked(Array(fping.stderrLines.suffix(2))), "\(reach)\n\(fping)")
        XCTAssertEqual(reach.stderrLines.last?.hasPrefix("\(Self.silent) : xmt/rcv/%loss = 4/0/100%"), true, "\(reach)")
        XCTAssertEqual(reach.status, fping.status)
    }

    /// Bad values and combinations: one `reach:` line, exit 64, nothing on stdout, nothing sent.
    func testBadInputSendsNothing() throws {
        let before = try net.client.icmpCounter("OutEchos")
        for (arguments, says) in [
            (["ping", "--generate", "198.18.1.1"], "nor a START followed by one END address"),
            (["ping", "--generate", "198.18.1.1", "198.18.1.3", "198.18.1.5"], "nor a START followed by one END address"),
            (["ping", "--generate", "198.18.1.9", "198.18.1.1"], "comes before the start"),
            (["ping", "--generate", "198.18.1.1", "2001:db8:1::2"], "not of one family"),
            (["ping", "--generate", "198.18.0.0", "198.19.0.0"], "more than 65536 addresses"),
            (["ping", "--loop", "-c", "2", Self.answering, Self.silent], "--loop and -c cannot be combined"),
            (["ping", "--squiet", "1", Self.answering, Self.silent], "--squiet needs -c or --loop"),
            (["ping", "--squiet", "0", "-c", "1", Self.answering, Self.silent], "--squiet must be more than 0"),
            (["ping", "--stats", "--json", Self.answering, Self.silent], "--json has its summary"),
        ] {
            let result = try ReachBinary.run(arguments, in: net.client)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
            XCTAssertEqual(result.stderrLines.count, 1, "\(result)")
            XCTAssertTrue(result.stderr.hasPrefix("reach: ") && result.stderr.contains(says), "\(arguments): \(result)")
        }
        XCTAssertEqual(try net.client.icmpCounter("OutEchos"), before, "nothing sent")
    }

    /// Lines with every decimal number (times, the elapsed seconds) as `_`.
    static func masked(_ lines: [String]) -> [String] {
        lines.map { line in
            line.replacingOccurrences(of: #"[0-9]+\.[0-9]+"#, with: "_", options: .regularExpression)
        }
    }
}

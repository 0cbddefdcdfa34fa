import Foundation
import XCTest

/// The options users of iputils ping and fping reach for first, run beside the peer on the
/// same lab network with the same option, output compared line for line (times masked):
/// iputils' -p and -M, fping's -g START END, -e, -s, -l and -Q.
final class PingPeerOptionTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-peer-" }
    private var net: LabTopology!

    static let answering = "198.18.1.2"
    static let answering6 = "2001:db8:1::2"
    static let silent = "198.18.1.3"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["fping", "ping", "nft"])
        net = try LabTopology(lab: lab, attachTun: false)
        try net.addSilentTarget(Self.silent)
        // The far end counts the echo requests whose data holds the pattern 0a 1b 02 from
        // data byte 24 on (nft's transport header offset, in bits: the 8-byte ICMP header and
        // 24 data bytes), where both iputils (whose first 16 data bytes are its timestamp)
        // and reach repeat it.
        try lab.nft(in: net.far, name: "pattern", """
            table inet reach_test {
              counter patterned { }
              chain input {
                type filter hook input priority 0;
                icmp type echo-request @th,256,64 0x0a1b020a1b020a1b counter name "patterned"
                icmpv6 type echo-request @th,256,64 0x0a1b020a1b020a1b counter name "patterned"
              }
            }
            """)
        try net.router.sysctl(["net.ipv4.icmp_ratelimit=0", "net.ipv6.icmp.ratelimit=0"])
        try net.client.waitForPingReplies(from: [Self.answering, Self.answering6], what: "the far end")
    }

    // MARK: - iputils

    /// -p fills each probe with the pattern (the far end sees it on the wire) and prints
    /// iputils' `PATTERN: 0x...` line before the PING line, over IPv4 and IPv6, raw and
    /// datagram sockets; with several targets the probes carry it too.
    func testPatternAsIputils() throws {
        let runs = [("raw", Self.answering), ("raw", Self.answering6), ("datagram", Self.answering), ("datagram", Self.answering6)]
        for (socket, target) in runs {
            if socket == "datagram" { try net.client.sysctl(["net.ipv4.ping_group_range=0 2147483647"]) }
            let before = try patternedEchoes()
            let reach = try ReachBinary.run(["ping", "-c", "2", "-i", "0.2", "-p", "0a1b2", target], in: net.client)
            XCTAssertEqual(try patternedEchoes() - before, 2, "\(socket): \(reach)")
            let iputils = try net.client.exec(["ping", "-c", "2", "-i", "0.2", "-p", "0a1b2", target])
            XCTAssertEqual(try patternedEchoes() - before, 4, "\(iputils)")
            XCTAssertEqual(reach.stdoutLines.first, "PATTERN: 0x0a1b02", "\(reach)")
            XCTAssertEqual(Self.masked(reach.stdoutLines), Self.masked(iputils.stdoutLines), "\(reach)\n\(iputils)")
            XCTAssertEqual(reach.status, 0)
            // -q leaves the PATTERN line out, as iputils does.
            let quiet = try ReachBinary.run(["ping", "-q", "-c", "1", "-p", "ff", target], in: net.client)
            let quietPeer = try net.client.exec(["ping", "-q", "-c", "1", "-p", "ff", target])
            XCTAssertEqual(Self.masked(quiet.stdoutLines), Self.masked(quietPeer.stdoutLines), "\(quiet)\n\(quietPeer)")
        }
        let before = try patternedEchoes()
        let many = try ReachBinary.run(
            ["ping", "-c", "1", "-q", "-p", "0a1b2", Self.answering, Self.answering6], in: net.client)
        XCTAssertEqual(many.status, 0, "\(many)")
        XCTAssertEqual(try patternedEchoes() - before, 2, "\(many)")
    }

    /// -M: `dont` lets a probe above the path MTU go in fragments (replies come); `do` sets
    /// DF, so the router on a 1280-byte link answers "Frag needed and DF set (mtu = 1280)",
    /// which reach prints as iputils does; over raw and datagram sockets.
    func testPathMTUDiscoveryAsIputils() throws {
        try net.router.ip("link", "set", "r1", "mtu", "1280")
        try net.far.ip("link", "set", "f0", "mtu", "1280")
        // The kernel keeps the MTU it learns for each destination (after that a probe too big
        // fails at home): each run pings an address of its own, not visited before.
        for (socket, mine, peers) in [("raw", "198.18.1.5", "198.18.1.6"), ("datagram", "198.18.1.7", "198.18.1.8")] {
            if socket == "datagram" { try net.client.sysctl(["net.ipv4.ping_group_range=0 2147483647"]) }
            for address in [mine, peers] { try net.far.ip("addr", "add", "\(address)/24", "dev", "f0") }
            let strict = try ReachBinary.run(["ping", "-c", "1", "-W", "1", "-M", "do", "-s", "1400", mine], in: net.client)
            let strictPeer = try net.client.exec(["ping", "-c", "1", "-W", "1", "-M", "do", "-s", "1400", peers])
            XCTAssertTrue(
                strict.stdoutLines.contains("From 198.18.0.1 icmp_seq=1 Frag needed and DF set (mtu = 1280)"), "\(socket): \(strict)")
            let peerLines = strictPeer.stdoutLines.map { $0.replacingOccurrences(of: peers, with: mine) }
            XCTAssertEqual(Self.masked(strict.stdoutLines), Self.masked(peerLines), "\(socket): \(strict)\n\(strictPeer)")
            XCTAssertEqual(strict.status, 1, "\(socket)")
            XCTAssertEqual(strictPeer.status, 1, "\(socket)")

            let dont = try ReachBinary.run(["ping", "-c", "1", "-M", "dont", "-s", "1400", mine], in: net.client)
            let dontPeer = try net.client.exec(["ping", "-c", "1", "-M", "dont", "-s", "1400", mine])
            XCTAssertEqual(dont.status, 0, "\(socket): \(dont)")
            XCTAssertEqual(Self.masked(dont.stdoutLines), Self.masked(dontPeer.stdoutLines), "\(socket): \(dont)\n\(dontPeer)")
        }
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
            (["ping", "-c", "1", "-p", "xyz", Self.answering], "-p: 'xyz' is not a pattern"),
            (["ping", "-c", "1", "-p", String(repeating: "ab", count: 17), Self.answering], "1 to 16 bytes"),
            (["ping", "-c", "1", "-M", "maybe", Self.answering], "-M: 'maybe' is not do, want or dont"),
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

    /// Echo requests the far end saw with the test pattern in their data.
    private func patternedEchoes() throws -> Int {
        let listing = try net.far.exec(["nft", "list", "counter", "inet", "reach_test", "patterned"])
        guard let range = listing.stdout.range(of: #"packets [0-9]+"#, options: .regularExpression) else {
            XCTFail("no counter: \(listing)")
            return -1
        }
        return Int(listing.stdout[range].dropFirst("packets ".count)) ?? -1
    }

    /// Lines with every decimal number (times, the elapsed seconds) as `_`, and iputils'
    /// program name where reach puts its own.
    static func masked(_ lines: [String]) -> [String] {
        lines.map { line in
            line.replacingOccurrences(of: #"[0-9]+\.[0-9]+"#, with: "_", options: .regularExpression)
                .replacingOccurrences(of: #"time [0-9]+ms"#, with: "time _ms", options: .regularExpression)
        }
    }
}

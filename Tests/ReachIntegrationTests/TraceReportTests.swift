import Foundation
import XCTest

/// `reach trace --report` beside mtr 0.95 (`mtr -r -n`, `--json`) on the trace tests' chain
/// (TraceTopology): the same hops and the same loss per hop, with r2 dropping every other
/// time exceeded it sends (nftables numgen: a known share, not a random one).
final class TraceReportTests: NamespaceTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["ip", "mtr", "nft"])
    }

    /// r2 drops every second time exceeded of each family: 10 probes at hop 2 lose 5.
    private func halveRouterTwo(_ net: TraceTopology) throws {
        try lab.nft(
            in: net.routers[1], name: "halve",
            """
            table inet rchhalve {
              chain output {
                type filter hook output priority 0;
                icmp type time-exceeded numgen inc mod 2 == 0 drop
                icmpv6 type time-exceeded numgen inc mod 2 == 0 drop
              }
            }
            """)
    }

    /// mtr's JSON report: each hub's host, Loss% and Snt.
    private func mtrHubs(_ target: String, in net: TraceTopology) throws -> [(host: String, loss: Double, sent: Int)] {
        // ICMP echo (mtr's default) beside reach -I; 0.1 s rounds (root), a short grace.
        let result = try net.client.exec(
            ["mtr", "-r", "-n", "--json", "-c", "10", "-i", "0.1", "--gracetime", "1", target], timeout: 60)
        XCTAssertEqual(result.status, 0, "\(result)")
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: Any]
        let hubs = (object?["report"] as? [String: Any])?["hubs"] as? [[String: Any]] ?? []
        return hubs.map { ($0["host"] as? String ?? "", ($0["Loss%"] as? NSNumber)?.doubleValue ?? -1, $0["Snt"] as? Int ?? -1) }
    }

    private func reachHops(_ target: String, in net: TraceTopology) throws -> (status: Int32, hops: [[String: Any]]) {
        let result = try ReachBinary.run(
            ["trace", "-I", "--report", "-c", "10", "--interval", "0.1", "--json", target], in: net.client, timeout: 60)
        XCTAssertEqual(result.stderr, "", "\(result)")
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: Any]
        XCTAssertEqual(object?["rounds"] as? Int, 10, "\(result)")
        return (result.status, object?["hops"] as? [[String: Any]] ?? [])
    }

    func testSameHopsAndLossPerHopAsMtr() throws {
        let net = try TraceTopology(lab: lab)
        try halveRouterTwo(net)
        try net.warmNeighbours()
        for target in [net.farIPv4, net.farIPv6] {
            let theirs = try mtrHubs(target, in: net)
            let (status, ours) = try reachHops(target, in: net)
            XCTAssertEqual(status, 0, "the destination answered")
            let expected = [1, 2, 3].map { target == net.farIPv4 ? net.routerIPv4($0) : net.routerIPv6($0) } + [target]
            XCTAssertEqual(theirs.map(\.host), expected, "mtr's hops")
            XCTAssertEqual(ours.map { $0["address"] as? String ?? "???" }, expected, "reach's hops, as mtr's")
            XCTAssertEqual(theirs.map(\.loss), [0, 50, 0, 0], "mtr's loss per hop")
            XCTAssertEqual(ours.map { ($0["loss_percent"] as? NSNumber)?.doubleValue ?? -1 }, theirs.map(\.loss), "the same loss")
            XCTAssertEqual(ours.map { $0["sent"] as? Int ?? -1 }, theirs.map(\.sent), "the same probes per hop")
            XCTAssertEqual(ours.map { $0["received"] as? Int ?? -1 }, [10, 5, 10, 10])
            XCTAssertEqual(ours.map { $0["icmp_type"] as? Int ?? -1 }, target == net.farIPv4 ? [11, 11, 11, 0] : [3, 3, 3, 129])
        }
    }

    func testTheTextReportHasMtrsColumnsAndSilentHops() throws {
        let net = try TraceTopology(lab: lab)
        // r2 silent: mtr's ??? row, 100% loss, and the hops after it as before.
        try net.silenceTimeExceeded(at: 2)
        try net.warmNeighbours()
        let arguments = ["-r", "-n", "-c", "3", "-i", "0.2"]
        let theirs = try net.client.exec(["mtr"] + arguments + ["--gracetime", "1", net.farIPv4], timeout: 60)
        let ours = try ReachBinary.run(
            ["trace", "-n", "-I", "--report", "-c", "3", "--interval", "0.2", net.farIPv4], in: net.client, timeout: 60)
        XCTAssertEqual(ours.status, 0, "\(ours)")
        // The start line's time and the round trips differ; the rest is mtr's to the byte.
        func masked(_ lines: [String]) -> [String] {
            lines.dropFirst().map { line in line.count > 45 ? String(line.prefix(46)) : line }
        }
        let hostLine = theirs.stdoutLines.dropFirst().first ?? ""
        XCTAssertEqual(ours.stdoutLines.dropFirst().first, hostLine, "the header: \(ours)")
        XCTAssertEqual(masked(ours.stdoutLines), masked(theirs.stdoutLines), "\(ours)\n\(theirs)")
        XCTAssertTrue(ours.stdoutLines.contains { $0.hasPrefix("  2.|-- ???") && $0.contains("100.0     3") }, "\(ours)")
        XCTAssertTrue(ours.stdoutLines.first?.hasPrefix("Start: ") ?? false)
    }

    func testAnUnreachableRouteEndsTheReportWithExit1() throws {
        let net = try TraceTopology(lab: lab)
        try net.warmNeighbours()
        let ours = try ReachBinary.run(
            ["trace", "--report", "-c", "2", "--interval", "0.2", "--json", net.unreachableIPv4], in: net.client, timeout: 60)
        XCTAssertEqual(ours.status, 1, "\(ours)")
        let object = try JSONSerialization.jsonObject(with: Data(ours.standardOutput)) as? [String: Any]
        let hops = object?["hops"] as? [[String: Any]] ?? []
        XCTAssertEqual(hops.map { $0["address"] as? String ?? "" }, [net.routerIPv4(1), net.routerIPv4(2)], "\(ours)")
        XCTAssertEqual(hops.last?["icmp_type"] as? Int, 3)
        XCTAssertEqual(hops.last?["icmp_code"] as? Int, 1, "host unreachable (!H) from r2's unreachable route")
        XCTAssertEqual(object?["reached"] as? Bool, false)
        // A report is rounds of one flow: --flows with it is bad input, one line, exit 64.
        let flows = try ReachBinary.run(["trace", "--report", "-c", "1", "--flows", "2", net.farIPv4], in: net.client, timeout: 60)
        XCTAssertEqual(flows.status, 64, "\(flows)")
        XCTAssertEqual(flows.stdout, "")
        XCTAssertEqual(flows.stderrLines.count, 1, "\(flows)")
    }
}

extension TraceReportTests {
    /// The live table on a terminal (Helpers/pty-keys.py): redrawn each round, `q` ends it
    /// with the report, and the terminal's modes come back.
    func testTheLiveTableRedrawsUntilQ() throws {
        let net = try TraceTopology(lab: lab)
        try net.warmNeighbours()
        let reach = ReachBinary.path
        let script = try HelperScript.path("pty-keys.py")
        // Three frames (each starts with the title), then q; stty -a after, on the same terminal.
        let result = try net.client.exec(
            ["python3", script, "reach trace to", "3", "q", "--", "sh", "-c",
             "\(reach) trace -n --interval 0.2 \(net.farIPv4); status=$?; stty -a | grep -o -- '-\\?icanon'; exit $status"],
            timeout: 60)
        XCTAssertEqual(result.status, 0, "\(result)")
        let text = result.stdout
        XCTAssertGreaterThanOrEqual(text.components(separatedBy: "\u{1b}[H\u{1b}[2J").count - 1, 3, "frames redrawn: \(text)")
        // After q, the report once more, without the screen's escapes: mtr's Start line.
        let tail = text.components(separatedBy: "\u{1b}[2J").last ?? ""
        XCTAssertTrue(tail.contains("Start: "), "\(text)")
        XCTAssertTrue(tail.contains("  4.|-- \(net.farIPv4)"), "\(text)")
        XCTAssertTrue(text.hasSuffix("icanon\r\n") && !text.hasSuffix("-icanon\r\n"), "canonical mode restored: \(text)")
    }
}

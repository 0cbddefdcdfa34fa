#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// A hostile network (docs/HARDENING.md): a raw-socket sender in the far namespace fires malformed and
/// forged ICMP at a running `reach ping`, and an HTTP server answers probes with malformed,
/// endless and slow responses. reach must not crash, must not wait past its timeouts, and
/// must count exactly the real replies.
final class HostileNetworkTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-harden-" }

    private var net: ChainTopology!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["python3", "setpriv"])
        net = try ChainTopology(lab: lab)
    }

    // MARK: - ICMP

    /// Raw socket (root): every packet of the barrage reaches reach's socket.
    func testRawSocketPingCountsOnlyRealRepliesUnderABarrage() throws {
        try pingUnderBarrage(as: [], expectedSocket: "raw")
    }

    /// Datagram socket (nobody, ping_group_range open): the kernel filters by identifier and
    /// checksum first; what passes must still be judged right.
    func testDatagramSocketPingCountsOnlyRealRepliesUnderABarrage() throws {
        try net.client.sysctl(["net.ipv4.ping_group_range=0 2147483647"])
        let binary = try binaryForOtherUsers()
        try pingUnderBarrage(as: Self.asNobody, binary: binary, expectedSocket: "datagram")
    }

    private func pingUnderBarrage(as prefix: [String], binary: String = ReachBinary.path, expectedSocket: String) throws {
        let count = 20
        let started = Date()
        let ping = try lab.launch(
            prefix + [binary, "ping", "-c", "\(count)", "-i", "0.2", "-W", "2", "--json", "198.18.1.2"],
            in: net.client, label: "ping-\(expectedSocket)")
        try ping.waitUntilReady(marker: "\"event\":\"sent\"")
        let start = try XCTUnwrap(Self.events(ping.log, "start").first, ping.log)
        XCTAssertEqual(start["socket"] as? String, expectedSocket)
        let identifier = try XCTUnwrap(start["identifier"] as? Int)
        usleep(300_000) // sequences 1 and 2 are out: forgeries may name them
        // Helpers/hostile-icmp-sender.py, in the far namespace (the target's own address as
        // source): malformed and forged ICMP, then a flood for another identifier.
        let sender = try lab.launchHelper("hostile-icmp-sender.py", ["198.18.0.2", "\(identifier)"], in: net.far, label: "hostile-sender")
        XCTAssertEqual(sender.waitForExit(), 0, sender.log)
        XCTAssertEqual(ping.waitForExit(), 0, ping.log)
        // 20 probes 0.2 s apart: about 4 s; the barrage must not stretch it.
        XCTAssertLessThan(Date().timeIntervalSince(started), 4 + 2.5, "ended on time")

        let log = ping.log
        let replies = Self.events(log, "reply")
        let counted = replies.filter { $0["duplicate"] as? Bool == false && $0["corrupted"] as? Bool == false }
        XCTAssertEqual(counted.compactMap { $0["seq"] as? Int }.sorted(), Array(1...count), "each probe answered once")
        XCTAssertTrue(counted.allSatisfy { $0["from"] as? String == "198.18.1.2" })
        let summary = try XCTUnwrap(Self.events(log, "summary").first, log)
        XCTAssertEqual(summary["transmitted"] as? Int, count)
        XCTAssertEqual(summary["received"] as? Int, count)
        XCTAssertEqual(summary["duplicates"] as? Int, 0, "forgeries are no duplicates")
        XCTAssertEqual(summary["errors"] as? Int, 0, "forged errors quote no probe of ours")
        XCTAssertEqual(summary["loss_percent"] as? Double, 0)
        // The bad-checksum replies name sequence 1 with our identifier: a raw socket sees and
        // counts them as corrupted (iputils' BAD CHECKSUM); the kernel drops them before a
        // datagram socket.
        XCTAssertEqual(summary["corrupted"] as? Int, expectedSocket == "raw" ? 5 : 0, log)
        XCTAssertFalse(log.contains("\"event\":\"icmp_error\""), "no forged error taken for ours")
        if expectedSocket == "raw" {
            // The flood of other identifiers and every malformed packet: one unexpected event each.
            XCTAssertGreaterThanOrEqual(Self.events(log, "unexpected").count, 2000, "the barrage arrived")
        }
    }

    /// The JSON events of this kind in a `reach ping --json` log (a line that does not parse fails).
    private static func events(_ log: String, _ kind: String, file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        JSONLines.events(log, kind, file: file, line: line)
    }

    // MARK: - HTTP

    /// Each hostile answer to an http probe (probe timeout 2 s): the verdict, and the time
    /// it may take at most. No crash, no hang, one JSON object, nothing on stderr.
    func testHTTPProbesSurviveMalformedEndlessAndSlowResponses() throws {
        _ = try lab.startHostileHTTPServer(in: net.far, address: "198.18.1.2")
        // An endless response is refused after 1 MiB, or, on a slow machine (a sanitizer build,
        // a loaded CI host), the probe times out first, while reading: a socket that is always
        // readable must not keep the reader past its own deadline. Either way it ends, bounded
        // in time and memory.
        let endless = [("portal", "no end after 1048576 bytes"), ("fail", "timed out reading the response")]
        let cases: [(path: String, outcomes: [(result: String, detail: String)])] = [
            ("/generate_204", [("pass", "HTTP 204")]),
            ("/garbage", [("portal", "not an HTTP response")]),
            ("/huge-chunk", [("fail", "timed out reading the response")]),
            ("/endless-body", endless),
            ("/endless-size", endless),
            ("/endless-headers", [("portal", "headers longer than 32768 bytes"), endless[1]]),
            ("/drip", [("fail", "timed out reading the response")]),
            ("/silent", [("fail", "timed out waiting for a response")]),
            ("/close", [("fail", "connection closed with no response")]),
        ]
        for testCase in cases {
            let started = Date()
            let report = try reachJSON(
                ["status", "-4", "--probe", "http://198.18.1.2:8080" + testCase.path, "--probe-timeout", "2s"],
                in: net.client, status: nil)
            let elapsed = Date().timeIntervalSince(started)
            XCTAssertLessThan(elapsed, 3.5, "\(testCase.path): no hang past the 2 s probe timeout")
            let probe = try XCTUnwrap(report.probes?.first, testCase.path)
            XCTAssertTrue(
                testCase.outcomes.contains { probe.result == $0.result && probe.detail.contains($0.detail) },
                "\(testCase.path): \(probe.result), \(probe.detail)")
        }
        // All at once: each probe keeps its own verdict, and a portal decides the state.
        let started = Date()
        let report = try reachJSON(
            ["status", "-4", "--probe-timeout", "2s"] + cases.flatMap { ["--probe", "http://198.18.1.2:8080" + $0.path] },
            in: net.client, status: 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3.5, "the probes ran in parallel, each bounded")
        XCTAssertEqual(report.connectivity, "portal")
        XCTAssertEqual(report.probes?.count, cases.count)
        for (probe, testCase) in zip(report.probes ?? [], cases) {
            XCTAssertTrue(
                testCase.outcomes.contains { probe.result == $0.result && probe.detail.contains($0.detail) },
                "together, \(testCase.path): \(probe.result), \(probe.detail)")
        }
    }
}

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

    private var net: PingTopology!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["python3", "setpriv"])
        net = try PingTopology(lab: lab)
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
        let sender = try lab.launch(
            ["python3", try hostileSender(), "198.18.0.2", "\(identifier)"], in: net.far, label: "hostile-sender")
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

    /// The sender: a raw socket in the far namespace (the target's own address as source).
    /// Argument: reach's address and its echo identifier.
    private func hostileSender() throws -> String {
        try lab.script("hostile-icmp.py", """
            import socket, struct, sys, time
            target, ours = sys.argv[1], int(sys.argv[2])
            other = (ours + 1) % 65536

            def checksum(data):
                if len(data) % 2:
                    data += b"\\0"
                total = sum(struct.unpack(f"!{len(data) // 2}H", data))
                while total >> 16:
                    total = (total & 0xFFFF) + (total >> 16)
                return ~total & 0xFFFF

            def icmp(kind, code, rest, good=True):
                header = struct.pack("!BBH", kind, code, 0) + rest
                value = checksum(header) if good else (checksum(header) ^ 0x5555)
                return struct.pack("!BBH", kind, code, value) + rest

            def echo(identifier, sequence, kind=0, good=True, payload=bytes(range(56))):
                return icmp(kind, 0, struct.pack("!HH", identifier, sequence) + payload, good)

            def ip_header(source, destination, ihl=5, protocol=1, total=84):
                first = 0x40 | ihl
                header = struct.pack("!BBHHHBBH4s4s", first, 0, total, 1, 0, 64, protocol, 0,
                                     socket.inet_aton(source), socket.inet_aton(destination))
                return header + b"\\0" * ((ihl - 5) * 4)

            def error(kind, code, quoted):
                return icmp(kind, code, b"\\0\\0\\0\\0" + quoted)

            probe = lambda identifier, sequence: echo(identifier, sequence, kind=8)
            ours_quoted = lambda sequence: ip_header(target, "198.18.1.2") + probe(ours, sequence)
            packets = [
                b"\\0\\0\\0",                                              # truncated: 3 bytes
                b"\\0",                                                    # truncated: 1 byte
                echo(ours, 1)[:6],                                         # an echo reply cut inside its header
                error(3, 1, b"\\x45\\0"),                                  # an error quoting 2 bytes
                error(3, 1, b"\\x4f" + b"\\0" * 30),                       # quoting an IHL of 60 with 31 bytes
                error(3, 1, b"\\x60" + b"\\0" * 40),                       # quoting no IPv4 header
                echo(ours, 60000),                                         # a reply to a probe never sent
                echo(ours, 0),                                             # sequence 0: never sent
                error(3, 1, ours_quoted(50000)),                           # error for a probe never sent
                error(11, 0, ours_quoted(60001)),                          # time exceeded, never sent
                error(3, 1, ip_header(target, "198.18.1.2") + probe(other, 1)),   # another pinger's probe
                error(3, 1, ip_header(target, "203.0.113.9") + probe(ours, 1)),   # ours, to another target
                error(3, 3, ip_header(target, "198.18.1.2", protocol=17) + probe(ours, 1)),  # a UDP quote
                icmp(13, 0, b"\\0" * 16),                                  # a timestamp request
                icmp(200, 7, b"\\0" * 8),                                  # an unknown type
                echo(ours, 2, kind=8),                                     # an echo request with our identifier
            ] + [echo(ours, 1, good=False)] * 5                            # bad checksum: counted as corrupted
            # IPPROTO_RAW: we write the IP header ourselves, so the kernel sends even a 1-byte ICMP
            # message as it is (it fills in the header checksum and total length).
            sender = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)

            def send(message, ihl=5):
                sender.sendto(ip_header("198.18.1.2", target, ihl=ihl, total=ihl * 4 + len(message)) + message, (target, 0))

            for packet in packets:
                send(packet)
                time.sleep(0.01)
            send(echo(ours, 61000), ihl=7)                                 # IP options before a reply never asked for
            # A flood of echo replies for another identifier: 3,000 in about 1.5 s.
            for sequence in range(3000):
                send(echo(other, sequence % 65536 + 1))
                if sequence % 100 == 99:
                    time.sleep(0.05)
            print("sent", len(packets) + 3001, flush=True)
            """)
    }

    /// The JSON events of this kind in a `reach ping --json` log.
    private static func events(_ log: String, _ kind: String) -> [[String: Any]] {
        log.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return object["event"] as? String == kind ? object : nil
        }
    }

    // MARK: - HTTP

    /// Each hostile answer to an http probe (probe timeout 2 s): the verdict, and the time
    /// it may take at most. No crash, no hang, one JSON object, nothing on stderr.
    func testHTTPProbesSurviveMalformedEndlessAndSlowResponses() throws {
        _ = try lab.startHTTPServer(in: net.far, address: "198.18.1.2")
        // An endless response is refused after 1 MiB, or, on a slow machine (a sanitizer build),
        // the probe times out first: either way it ends, bounded in time and memory.
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

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import XCTest

/// The tcp prober's query_response and source address, the icmp prober's options and the
/// grpc prober, each asked of reach-exporter and of Debian's blackbox_exporter 0.23 with the
/// same module, against real servers in the far namespace: an SMTP-style line server
/// (Helpers/line-server.py) and grpcio's health service (Helpers/grpc-health-server.py).
///
/// ```
///  client  v0 198.18.0.2/24 2001:db8::2/64 (MTU 1280) ──── f0 198.18.0.1 2001:db8::1  far
///          far: line servers on 2525 (smtp), 2526 (a banner, then closed), 2527 (a 70,000-byte
///          line); the gRPC health server on 50051 ("" and "up" SERVING, "down" NOT_SERVING);
///          nothing on 50052
/// ```
extension ExporterTests {
    /// The grpcio tree `scripts/install-deps.sh test` installs into .build/grpc-health;
    /// GRPC_HEALTH_TREE overrides it.
    static let grpcTree: String = {
        if let tree = ProcessInfo.processInfo.environment["GRPC_HEALTH_TREE"], !tree.isEmpty { return tree }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.appendingPathComponent(".build/grpc-health").path
    }()

    static let proberModules = """
        modules:
          smtp_ehlo:
            prober: tcp
            timeout: 2s
            tcp:
              query_response:
                - expect: "^220 ([^ ]+) ESMTP (.+)$"
                  send: "EHLO ${1}"
                - expect: "^250 hello lab.test"
                  send: QUIT
                - expect: "^221"
          smtp_wrong_name:
            prober: tcp
            timeout: 1s
            tcp:
              query_response:
                - expect: "^220"
                  send: "EHLO someone.else"
                - expect: "^250 hello"
          ssh_banner:
            prober: tcp
            timeout: 2s
            tcp:
              query_response:
                - expect: "^SSH-2.0-"
          tcp_from_client:
            prober: tcp
            tcp:
              source_ip_address: 198.18.0.2
          tcp_from_elsewhere:
            prober: tcp
            tcp:
              source_ip_address: 198.18.0.99
          icmp_ttl:
            prober: icmp
            icmp:
              ttl: 5
          icmp_big:
            prober: icmp
            icmp:
              payload_size: 1400
          icmp_big_df:
            prober: icmp
            icmp:
              payload_size: 1400
              dont_fragment: true
          icmp_from_client:
            prober: icmp
            icmp:
              source_ip_address: 198.18.0.2
          icmp_from_elsewhere:
            prober: icmp
            icmp:
              source_ip_address: 198.18.0.99
          grpc_plain:
            prober: grpc
            timeout: 2s
          grpc_whole:
            prober: grpc
            timeout: 2s
            grpc:
              preferred_ip_protocol: ip4
          grpc_up:
            prober: grpc
            timeout: 2s
            grpc:
              service: up
          grpc_down:
            prober: grpc
            timeout: 2s
            grpc:
              service: down
          grpc_unknown:
            prober: grpc
            timeout: 2s
            grpc:
              service: nosuch

        """

    /// A probe asked of both exporters: the module, the target, reach's expected verdict and
    /// failure reason ("" when it succeeds), and the metrics whose values must be equal.
    private typealias ProberCase = (module: String, target: String, success: Double, reason: String, equal: [String])

    private static let grpcMetrics = [
        "probe_grpc_status_code", "probe_grpc_ssl", "probe_ip_protocol",
        "probe_grpc_healthcheck_response{serving_status=\"SERVING\"}",
        "probe_grpc_healthcheck_response{serving_status=\"NOT_SERVING\"}",
        "probe_grpc_healthcheck_response{serving_status=\"UNKNOWN\"}",
        "probe_grpc_healthcheck_response{serving_status=\"SERVICE_UNKNOWN\"}",
    ]

    private static let proberCases: [ProberCase] = [
        ("smtp_ehlo", "198.18.0.1:2525", 1, "", ["probe_failed_due_to_regex"]),
        ("smtp_ehlo", "[2001:db8::1]:2525", 1, "", ["probe_failed_due_to_regex", "probe_ip_protocol"]),
        ("smtp_wrong_name", "198.18.0.1:2525", 0, "timed_out", ["probe_failed_due_to_regex"]),
        ("ssh_banner", "198.18.0.1:2526", 0, "query_response_not_matched", ["probe_failed_due_to_regex"]),
        ("ssh_banner", "198.18.0.1:2527", 0, "line_too_long", ["probe_failed_due_to_regex"]),
        ("ssh_banner", "198.18.0.1:2528", 0, "connection_refused", ["probe_failed_due_to_regex"]),
        ("tcp_from_client", "198.18.0.1:2525", 1, "", []),
        ("tcp_from_elsewhere", "198.18.0.1:2525", 0, "source_address_unavailable", []),
        ("icmp_ttl", "198.18.0.1", 1, "", ["probe_icmp_reply_hop_limit"]),
        ("icmp_ttl", "2001:db8::1", 1, "", ["probe_icmp_reply_hop_limit"]),
        ("icmp_big", "198.18.0.1", 1, "", ["probe_icmp_reply_hop_limit"]),
        ("icmp_big_df", "198.18.0.1", 0, "packet_too_big", []),
        ("icmp_from_client", "198.18.0.1", 1, "", []),
        ("icmp_from_elsewhere", "198.18.0.1", 0, "source_address_unavailable", []),
        ("grpc_whole", "198.18.0.1:50051", 1, "", grpcMetrics),
        // Without a grpc mapping blackbox_exporter has no fallback to IPv4 (its DefaultModule
        // sets no grpc defaults): IPv6 only.
        ("grpc_plain", "198.18.0.1:50051", 0, "name_not_resolved", grpcMetrics),
        ("grpc_plain", "far.lab:50051", 1, "", grpcMetrics),
        ("grpc_up", "198.18.0.1:50051", 1, "", grpcMetrics),
        ("grpc_down", "198.18.0.1:50051", 0, "not_serving", grpcMetrics),
        ("grpc_unknown", "198.18.0.1:50051", 0, "grpc_status", grpcMetrics),
        ("grpc_up", "198.18.0.1:50052", 0, "connection_refused", grpcMetrics),
        // A server that answers HTTP/2's preface with an SMTP greeting.
        ("grpc_up", "198.18.0.1:2525", 0, "connection_closed", grpcMetrics),
    ]

    /// Where reach answers and blackbox_exporter 0.23 does not: grpc-go dials an IPv6
    /// literal target without its brackets ("2001:db8::1:50051") and fails.
    private static let reachOnlyCases: [(module: String, target: String)] = [("grpc_up", "[2001:db8::1]:50051")]

    /// The far namespace's servers, the 1280-byte MTU, and both exporters with the modules.
    private func startProberLab() throws -> Network {
        let net = try network()
        try Privilege.requireRootAndTools(["prometheus-blackbox-exporter"])
        try net.client.ip("link", "set", "v0", "mtu", "1280")
        try net.far.ip("link", "set", "f0", "mtu", "1280")
        for (port, mode) in [(2525, "smtp"), (2526, "banner"), (2527, "long")] {
            let server = try lab.launchHelper("line-server.py", ["::", String(port), mode], in: net.far, label: "line-\(mode)")
            try server.waitUntilReady(marker: "listening")
        }
        try startGRPCHealthServer(port: 50051, in: net.far)
        let configPath = try lab.script("probers.yml", Self.proberModules)
        let blackbox = try lab.launch(
            ["prometheus-blackbox-exporter", "--config.file=\(configPath)", "--web.listen-address=127.0.0.1:19115"],
            in: net.client, label: "blackbox")
        try waitForPort(19115, in: net.client, server: blackbox)
        _ = try startExporter(
            ["--config", configPath, "--allow", "198.18.0.0/15", "--allow", "2001:db8::/32", "--allow", "far.lab"], in: net.client)
        return net
    }

    func testProbersAnswerAsBlackboxExporter() throws {
        let net = try startProberLab()
        for probe in Self.proberCases {
            let label = "\(probe.module) \(probe.target)"
            let query = "/probe?module=\(probe.module)&target=\(probe.target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            let header = ["X-Prometheus-Scrape-Timeout-Seconds:3"]
            let theirs = samples(try get("http://127.0.0.1:19115\(query)", in: net.client, headers: header).body)
            let ours = samples(try get("http://127.0.0.1:10115\(query)", in: net.client, headers: header).body)
            XCTAssertEqual(ours["probe_success"], probe.success, label)
            XCTAssertEqual(theirs["probe_success"], probe.success, "blackbox_exporter: \(label)")
            for name in probe.equal {
                XCTAssertEqual(ours[name], theirs[name], "\(label): \(name)")
            }
            let reasons = ours.filter { $0.key.hasPrefix("reach_probe_failure_info") }
            XCTAssertEqual(reasons, probe.reason.isEmpty ? [:] : ["reach_probe_failure_info{reason=\"\(probe.reason)\"}": 1], label)
            // Every metric blackbox_exporter answered, but its TLS ones (0 without TLS), has
            // the same name and labels in reach's answer.
            let shared = Set(theirs.keys).filter { !$0.hasPrefix("probe_ssl") && !$0.hasPrefix("probe_tls") }
            XCTAssertEqual(shared.subtracting(ours.keys), [], "\(label): metrics blackbox_exporter has and reach does not")
        }
        for (module, target) in Self.reachOnlyCases {
            let query = "/probe?module=\(module)&target=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            let ours = samples(try get("http://127.0.0.1:10115\(query)", in: net.client).body)
            XCTAssertEqual(ours["probe_success"], 1, "\(module) \(target)")
            XCTAssertEqual(ours["probe_grpc_healthcheck_response{serving_status=\"SERVING\"}"], 1, "\(module) \(target)")
        }
    }
}

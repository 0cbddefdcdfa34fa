import Foundation
import XCTest

/// The exporter's `trace` module (reach's own prober) on the trace tests' chain
/// (TraceTopology, with r2b beside r2): success, an unreachable route, and a path change
/// that moves reach_trace_path_hash and the hop's info series.
extension ExporterTests {
    private static let traceModules = """
        modules:
          trace_udp:
            prober: trace
            timeout: 5s
          trace_icmp:
            prober: trace
            trace:
              method: icmp
              max_hops: 8
        """

    private func traceProbe(_ module: String, _ target: String, in net: TraceTopology) throws -> [String: Double] {
        let query = "/probe?module=\(module)&target=\(target)"
        return samples(try get("http://127.0.0.1:10115\(query)", in: net.client, headers: ["X-Prometheus-Scrape-Timeout-Seconds:5"]).body)
    }

    func testTraceModuleNamesTheHopsAndMovesItsHashWithThePath() throws {
        try Privilege.requireRootAndTools(["ip", "nft"])
        let net = try TraceTopology(lab: lab, ecmp: true)
        let r1 = net.routers[0]
        // One path at a time: through r2, then through r2b.
        try r1.ip("route", "replace", "198.18.3.0/24", "via", "198.18.1.2")
        try net.warmNeighbours()
        let configPath = try lab.script("trace.yml", Self.traceModules)
        _ = try startExporter(["--config", configPath, "--allow", "198.18.0.0/15", "--allow", "2001:db8::/32"], in: net.client)

        let first = try traceProbe("trace_udp", net.farIPv4, in: net)
        XCTAssertEqual(first["probe_success"], 1, "\(first)")
        XCTAssertEqual(first["reach_trace_hops"], 4)
        for (hop, address) in [(1, "198.18.0.1"), (2, "198.18.1.2"), (3, "198.18.2.2"), (4, net.farIPv4)] {
            XCTAssertEqual(first["reach_trace_hop_info{hop=\"\(hop)\",address=\"\(address)\"}"], 1, "hop \(hop): \(first)")
        }
        let again = try traceProbe("trace_icmp", net.farIPv4, in: net)
        XCTAssertEqual(again["probe_success"], 1, "\(again)")
        XCTAssertEqual(again["reach_trace_path_hash"], first["reach_trace_path_hash"], "the same path, whatever the method")

        try r1.ip("route", "replace", "198.18.3.0/24", "via", "198.18.4.2")
        try net.warmNeighbours()
        let moved = try traceProbe("trace_udp", net.farIPv4, in: net)
        XCTAssertEqual(moved["probe_success"], 1, "\(moved)")
        XCTAssertEqual(moved["reach_trace_hop_info{hop=\"2\",address=\"\(net.ecmpRouterIPv4)\"}"], 1, "\(moved)")
        XCTAssertNotEqual(moved["reach_trace_path_hash"], first["reach_trace_path_hash"], "the path changed")
    }

    func testTraceModuleFailsAtAnUnreachableRoute() throws {
        try Privilege.requireRootAndTools(["ip", "nft"])
        let net = try TraceTopology(lab: lab)
        try net.warmNeighbours()
        let configPath = try lab.script("trace.yml", Self.traceModules)
        _ = try startExporter(["--config", configPath, "--allow", "198.16.0.0/12"], in: net.client)
        let result = try traceProbe("trace_udp", net.unreachableIPv4, in: net)
        XCTAssertEqual(result["probe_success"], 0, "\(result)")
        XCTAssertEqual(result["reach_probe_failure_info{reason=\"host_unreachable\"}"], 1, "\(result)")
        XCTAssertEqual(result["reach_trace_hops"], 2, "r2 answered with its unreachable route")
        // &debug=true shows the module with its trace settings.
        let debug = try get("http://127.0.0.1:10115/probe?module=trace_icmp&target=\(net.farIPv4)&debug=true", in: net.client).body
        XCTAssertTrue(debug.contains("prober: trace"), debug)
        XCTAssertTrue(debug.contains("method: icmp") && debug.contains("max_hops: 8"), debug)
    }
}

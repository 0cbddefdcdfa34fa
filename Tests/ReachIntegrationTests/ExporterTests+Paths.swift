#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// reach's own address keys, asked of reach-exporter on a host with two ways out:
/// `source_interface` (the probe leaves by the named link, which an nftables counter on the
/// second router proves) and `preferred_ip_protocol: both` (every family at once).
///
/// ```
///  host  u1 198.18.10.2/24 2001:db8:10::2/64 -- a1 router1 b1 198.18.12.1 2001:db8:12::1 -- f1 far
///        u2 198.18.11.2/24 ------------------- a2 router2 b2 198.18.13.1 ------------------- f2 far
///        defaults: via router1 (metric 100), via router2 (metric 200); IPv6 via router1 only
///        its resolver: far's dnsmasq
///  far   198.51.100.10 and 2001:db8:64::10 on lo, an HTTP server on port 8080, dnsmasq on
///        198.51.100.10 (far.lab is 198.51.100.10 and 2001:db8:64::10), the gRPC health
///        server on 50051 (the source_interface test); the host's networks routed back
///        through the router each came from
///  router2: the named counter "up2" counts what it forwards from the host
/// ```
extension ExporterTests {
    private static let farIPv4 = "198.51.100.10"
    private static let farIPv6 = "2001:db8:64::10"

    private static let pathModules = """
        modules:
          icmp_up2: {prober: icmp, timeout: 5s, icmp: {preferred_ip_protocol: ip4, source_interface: u2}}
          tcp_up2: {prober: tcp, timeout: 5s, tcp: {preferred_ip_protocol: ip4, source_interface: u2}}
          http_up2: {prober: http, timeout: 5s, http: {preferred_ip_protocol: ip4, source_interface: u2}}
          dns_up2: {prober: dns, timeout: 5s, dns: {query_name: far.lab, query_type: A, preferred_ip_protocol: ip4, source_interface: u2}}
          grpc_up2: {prober: grpc, timeout: 5s, grpc: {preferred_ip_protocol: ip4, source_interface: u2}}
          icmp_default: {prober: icmp, timeout: 5s, icmp: {preferred_ip_protocol: ip4}}
          icmp_gone: {prober: icmp, timeout: 5s, icmp: {source_interface: rch-gone0}}
          tcp_gone: {prober: tcp, timeout: 5s, tcp: {source_interface: rch-gone0}}
          http_gone: {prober: http, timeout: 5s, http: {source_interface: rch-gone0}}
          icmp_both: {prober: icmp, timeout: 3s, icmp: {preferred_ip_protocol: both}}
          http_both: {prober: http, timeout: 5s, http: {preferred_ip_protocol: both}}

        """

    private struct Uplinks {
        let host: Namespace
        let router1: Namespace
        let router2: Namespace
        let far: Namespace
    }

    /// The two-uplink network above, its HTTP server and dnsmasq running, and reach-exporter
    /// in the host with the modules above.
    private func startUplinks() throws -> Uplinks {
        try Privilege.requireRootAndTools(["ip", "python3", "nft", "dnsmasq"])
        let net = Uplinks(
            host: try lab.namespace("host"), router1: try lab.namespace("r1"), router2: try lab.namespace("r2"),
            far: try lab.namespace("far"))
        try lab.veth("u1", in: net.host, peer: "a1", in: net.router1)
        try lab.veth("u2", in: net.host, peer: "a2", in: net.router2)
        try lab.veth("b1", in: net.router1, peer: "f1", in: net.far)
        try lab.veth("b2", in: net.router2, peer: "f2", in: net.far)
        let addresses: [(Namespace, String, String)] = [
            (net.host, "u1", "198.18.10.2/24"), (net.router1, "a1", "198.18.10.1/24"), (net.host, "u2", "198.18.11.2/24"),
            (net.router2, "a2", "198.18.11.1/24"), (net.router1, "b1", "198.18.12.1/24"), (net.far, "f1", "198.18.12.2/24"),
            (net.router2, "b2", "198.18.13.1/24"), (net.far, "f2", "198.18.13.2/24"), (net.far, "lo", "\(Self.farIPv4)/32"),
        ]
        for (namespace, link, address) in addresses { try namespace.ip("addr", "add", address, "dev", link) }
        for (namespace, link, address) in [
            (net.host, "u1", "2001:db8:10::2/64"), (net.router1, "a1", "2001:db8:10::1/64"), (net.router1, "b1", "2001:db8:12::1/64"),
            (net.far, "f1", "2001:db8:12::2/64"), (net.far, "lo", "\(Self.farIPv6)/128"),
        ] {
            try namespace.ip("-6", "addr", "add", address, "dev", link, "nodad")
        }
        try route(net)
        try lab.nft(
            in: net.router2, name: "up2",
            """
            table inet rchpath {
              counter up2 {}
              chain forward {
                type filter hook forward priority 0;
                iifname "a2" counter name "up2"
              }
            }
            """)
        for (namespace, link) in [(net.host, "u1"), (net.host, "u2"), (net.far, "f1"), (net.far, "f2")] {
            try namespace.waitFor(link: link, operstate: "UP")
        }
        let server = try lab.launch(
            ["python3", "-m", "http.server", "--bind", "::", "--directory", lab.directory, "8080"], in: net.far, label: "http-server")
        try waitForPort(8080, in: net.far, server: server)
        _ = try lab.startDNSMasq(
            in: net.far, address: Self.farIPv4, records: ["far.lab": [Self.farIPv4, Self.farIPv6]], nonexistent: [])
        try net.host.useResolver([Self.farIPv4])
        try net.host.waitForPingReplies(from: [Self.farIPv4, Self.farIPv6], what: "far")
        let configPath = try lab.script("paths.yml", Self.pathModules)
        _ = try startExporter(
            ["--config", configPath, "--allow", "198.51.100.0/24", "--allow", "2001:db8::/32", "--allow", "far.lab"], in: net.host)
        return net
    }

    private func route(_ net: Uplinks) throws {
        try net.host.ip("route", "add", "default", "via", "198.18.10.1", "dev", "u1", "metric", "100")
        try net.host.ip("route", "add", "default", "via", "198.18.11.1", "dev", "u2", "metric", "200")
        try net.host.ip("-6", "route", "add", "default", "via", "2001:db8:10::1", "dev", "u1")
        try net.router1.ip("route", "add", "\(Self.farIPv4)/32", "via", "198.18.12.2")
        try net.router1.ip("-6", "route", "add", "\(Self.farIPv6)/128", "via", "2001:db8:12::2")
        try net.router2.ip("route", "add", "\(Self.farIPv4)/32", "via", "198.18.13.2")
        try net.far.ip("route", "add", "198.18.10.0/24", "via", "198.18.12.1")
        try net.far.ip("route", "add", "198.18.11.0/24", "via", "198.18.13.1")
        try net.far.ip("-6", "route", "add", "2001:db8:10::/64", "via", "2001:db8:12::1")
    }

    /// Packets router2 has forwarded from the host (`nft list counter`: "packets N bytes M").
    private func up2Packets(_ net: Uplinks) throws -> Int {
        let listed = try net.router2.exec(["nft", "list", "counter", "inet", "rchpath", "up2"])
        let words = listed.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        guard listed.status == 0, let index = words.firstIndex(of: "packets"), index + 1 < words.count, let packets = Int(words[index + 1])
        else { throw HarnessError("no up2 counter: \(listed)") }
        return packets
    }

    private func probe(_ module: String, _ target: String, in net: Uplinks, debug: Bool = false) throws
        -> (body: String, samples: [String: Double])
    {
        let query = "module=\(module)&target=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        let answer = try get("http://127.0.0.1:10115/probe?\(query)" + (debug ? "&debug=true" : ""), in: net.host)
        XCTAssertEqual(answer.status, 200, "\(module) \(target): \(answer.body)")
        return (answer.body, samples(answer.body))
    }

    private func failureReasons(_ samples: [String: Double]) -> [String: Double] {
        samples.filter { $0.key.hasPrefix("reach_probe_failure_info") }
    }

    func testSourceInterfaceLeavesByTheNamedLink() throws {
        let net = try startUplinks()
        try startGRPCHealthServer(port: 50051, in: net.far)
        let targets = [
            "icmp_up2": Self.farIPv4, "tcp_up2": "\(Self.farIPv4):8080", "http_up2": "http://\(Self.farIPv4):8080/",
            "dns_up2": Self.farIPv4, "grpc_up2": "\(Self.farIPv4):50051",
        ]
        for module in ["icmp_up2", "tcp_up2", "http_up2", "dns_up2", "grpc_up2"] {
            let before = try up2Packets(net)
            let answer = try probe(module, targets[module] ?? "", in: net)
            XCTAssertEqual(answer.samples["probe_success"], 1, "\(module): \(answer.body)")
            XCTAssertGreaterThan(try up2Packets(net), before, "\(module) left by u2, through router2")
        }
        // Without the key the kernel's choice, u1 (metric 100): router2 sees nothing.
        let before = try up2Packets(net)
        XCTAssertEqual(try probe("icmp_default", Self.farIPv4, in: net).samples["probe_success"], 1)
        XCTAssertEqual(try up2Packets(net), before, "icmp_default left by u1")
        let debug = try probe("tcp_up2", "\(Self.farIPv4):8080", in: net, debug: true).body
        let tcpBlock = "tcp:\n    preferred_ip_protocol: ip4\n    ip_protocol_fallback: true\n    source_interface: u2\n"
        XCTAssertTrue(debug.contains(tcpBlock), debug)
        // A link that is not there fails the probe with its reason; the exporter goes on.
        let gone = ["icmp_gone": Self.farIPv4, "tcp_gone": "\(Self.farIPv4):8080", "http_gone": "http://\(Self.farIPv4):8080/"]
        for (module, target) in gone.sorted(by: { $0.key < $1.key }) {
            let answer = try probe(module, target, in: net)
            XCTAssertEqual(answer.samples["probe_success"], 0, "\(module): \(answer.body)")
            XCTAssertEqual(failureReasons(answer.samples), ["reach_probe_failure_info{reason=\"source_interface_unavailable\"}": 1], module)
        }
        XCTAssertEqual(try get("http://127.0.0.1:10115/-/healthy", in: net.host).status, 200)
    }

    func testBothFamiliesAtOnce() throws {
        let net = try startUplinks()
        for (module, target) in [("icmp_both", "far.lab"), ("http_both", "http://far.lab:8080/")] {
            let answer = try probe(module, target, in: net)
            XCTAssertEqual(answer.samples["probe_success"], 1, "\(module): \(answer.body)")
            XCTAssertEqual(answer.samples["reach_probe_ip_protocol_success{ip_protocol=\"ip6\"}"], 1, module)
            XCTAssertEqual(answer.samples["reach_probe_ip_protocol_success{ip_protocol=\"ip4\"}"], 1, module)
        }
        // IPv6 refused by its route: the probe fails, IPv4's series says it alone succeeded.
        try net.host.ip("-6", "route", "add", "blackhole", "\(Self.farIPv6)/128")
        let blackholed = try probe("icmp_both", "far.lab", in: net)
        XCTAssertEqual(blackholed.samples["probe_success"], 0, blackholed.body)
        XCTAssertEqual(blackholed.samples["reach_probe_ip_protocol_success{ip_protocol=\"ip6\"}"], 0, blackholed.body)
        XCTAssertEqual(blackholed.samples["reach_probe_ip_protocol_success{ip_protocol=\"ip4\"}"], 1, blackholed.body)
        XCTAssertEqual(failureReasons(blackholed.samples), ["reach_probe_failure_info{reason=\"blackhole_route\"}": 1])
        let debug = try probe("icmp_both", "far.lab", in: net, debug: true).body
        XCTAssertTrue(debug.contains("msg=\"Family probe failed\" ip_protocol=ip6 ip=\(Self.farIPv6) "), debug)
        XCTAssertTrue(debug.contains("msg=\"Family probe succeeded\" ip_protocol=ip4 ip=\(Self.farIPv4) "), debug)
        XCTAssertTrue(debug.contains("icmp:\n    preferred_ip_protocol: both\n    ttl: 64\n"), debug)
        // IPv6 dropped without a word: its probe waits out the module's 3 s while IPv4's,
        // at the same time, is answered; the probe still ends by its timeout (the bound
        // allows a busy machine a second more).
        try net.host.ip("-6", "route", "del", "blackhole", "\(Self.farIPv6)/128")
        try lab.nft(
            in: net.router1, name: "drop6",
            """
            table ip6 rchdrop {
              chain forward {
                type filter hook forward priority 0;
                ip6 daddr \(Self.farIPv6) drop
              }
            }
            """)
        let dropped = try probe("icmp_both", "far.lab", in: net)
        XCTAssertEqual(dropped.samples["reach_probe_ip_protocol_success{ip_protocol=\"ip6\"}"], 0, dropped.body)
        XCTAssertEqual(dropped.samples["reach_probe_ip_protocol_success{ip_protocol=\"ip4\"}"], 1, dropped.body)
        XCTAssertEqual(failureReasons(dropped.samples), ["reach_probe_failure_info{reason=\"timed_out\"}": 1])
        XCTAssertLessThan(dropped.samples["probe_duration_seconds"] ?? 99, 4, dropped.body)
    }

    /// `both` leaves nothing to fall back to: the start is refused with the key's line.
    func testBothWithAFallbackIsRefusedAtLoad() throws {
        let path = try lab.script("fallback.yml", "modules:\n  m:\n    prober: icmp\n    icmp:\n      preferred_ip_protocol: both\n"
            + "      ip_protocol_fallback: true\n")
        let result = try Subprocess.run([Self.exporterPath, "--config", path], timeout: 20)
        XCTAssertEqual(result.status, 78, "\(result)")
        XCTAssertEqual(result.stderrLines, [
            "reach-exporter: \(path): line 6: icmp.ip_protocol_fallback: not with preferred_ip_protocol: both, "
                + "which probes every family at once"
        ])
        XCTAssertEqual(result.stdout, "")
    }
}

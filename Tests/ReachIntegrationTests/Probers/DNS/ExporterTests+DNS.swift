import Foundation
import XCTest

/// The dns prober beside blackbox_exporter 0.23, on the same dnsmasq with the same modules:
///
/// ```
///  client  v0 198.18.0.2/24 2001:db8::2/64 ──── f0 198.18.0.1 2001:db8::1  server
///          both exporters                       dnsmasq on port 53 (UDP and TCP), the zone
///                                               "lab" its own (SOA, NS); a server that reads
///                                               queries and never answers on 198.18.0.3;
///                                               hostile-dns-server.py on 198.18.0.4
/// ```
extension ExporterTests {
    /// A probe both exporters answer, reach's expected verdict and, for a failure, its reason.
    private typealias DNSCase = (module: String, target: String, success: Double, reason: String?)

    private static let dnsModules = """
        modules:
          a:
            prober: dns
            dns:
              query_name: h.lab
              query_type: A
              preferred_ip_protocol: ip4
              validate_answer_rrs:
                fail_if_not_matches_regexp: ['^h\\.lab\\.\\t\\d+\\tIN\\tA\\t198\\.18\\.0\\.6$']
          aaaa_tcp:
            prober: dns
            dns:
              query_name: h.lab
              query_type: AAAA
              transport_protocol: tcp
              validate_answer_rrs:
                fail_if_none_matches_regexp: ['\\tAAAA\\t2001:db8::6$']
          any_tcp:
            prober: dns
            dns:
              query_name: h.lab
              transport_protocol: tcp
          soa:
            prober: dns
            dns:
              query_name: lab
              query_type: SOA
              validate_authority_rrs:
                fail_if_matches_regexp: ['.*']
          txt:
            prober: dns
            dns:
              query_name: t.lab
              query_type: TXT
              validate_answer_rrs:
                fail_if_not_matches_regexp: ['^t\\.lab\\.\\t\\d+\\tIN\\tTXT\\t"hello world" "two \\\\"q\\\\""$']
          mx_wrong:
            prober: dns
            dns:
              query_name: lab
              query_type: MX
              validate_answer_rrs:
                fail_if_none_matches_regexp: ['\\tMX\\t20 ']
          srv_all:
            prober: dns
            dns:
              query_name: _sip._tcp.lab
              query_type: SRV
              validate_answer_rrs:
                fail_if_all_match_regexp: ['\\tSRV\\t1 2 5060 sip\\.lab\\.$']
          cname_not_all:
            prober: dns
            dns:
              query_name: c.lab
              query_type: A
              validate_answer_rrs:
                fail_if_all_match_regexp: ['\\tCNAME\\t']
          nxdomain:
            prober: dns
            dns:
              query_name: missing.lab
              query_type: A
          nxdomain_valid:
            prober: dns
            dns:
              query_name: missing.lab
              query_type: A
              valid_rcodes: [NXDOMAIN]
              validate_authority_rrs:
                fail_if_not_matches_regexp: ['\\tSOA\\t']
          from_source:
            prober: dns
            dns:
              query_name: h.lab
              query_type: A
              source_ip_address: 198.18.0.2
          loop:
            prober: dns
            dns:
              query_name: loop.lab
              query_type: A
          quick:
            prober: dns
            timeout: 1s
            dns:
              query_name: h.lab
              query_type: A

        """

    private static let dnsCases: [DNSCase] = [
        ("a", "198.18.0.1", 1, nil), ("a", "198.18.0.1:53", 1, nil), ("aaaa_tcp", "[2001:db8::1]:53", 1, nil),
        ("aaaa_tcp", "2001:db8::1", 1, nil), ("any_tcp", "198.18.0.1", 1, nil), ("soa", "198.18.0.1", 0, "dns_authority_rrs"),
        ("txt", "198.18.0.1", 1, nil), ("mx_wrong", "198.18.0.1", 0, "dns_answer_rrs"), ("srv_all", "198.18.0.1", 1, nil),
        ("cname_not_all", "198.18.0.1", 0, "dns_answer_rrs"), ("nxdomain", "198.18.0.1", 0, "dns_rcode"),
        ("nxdomain_valid", "198.18.0.1", 1, nil), ("from_source", "198.18.0.1", 1, nil),
        ("quick", "198.18.0.1:5353", 0, "connection_refused"), ("quick", "198.18.0.3", 0, "timed_out"),
        ("any_tcp", "198.18.0.1:5353", 0, "connection_refused"), ("a", "203.0.113.1", 0, "unreachable_route"),
        // Another ID first over UDP (skipped), a pointer loop, another ID over TCP.
        ("a", "198.18.0.4", 1, nil), ("loop", "198.18.0.4", 0, "malformed_response"), ("any_tcp", "198.18.0.4", 0, "malformed_response"),
    ]

    func testDNSProberAnswersAsBlackboxExporterDoes() throws {
        let (client, server) = try dnsNamespaces(serverAddresses: ["198.18.0.1/24", "198.18.0.3/24", "198.18.0.4/24"])
        try client.ip("route", "add", "unreachable", "203.0.113.0/24")
        _ = try lab.startDNSMasq(
            in: server, address: "198.18.0.1", records: ["h.lab": ["198.18.0.6", "2001:db8::6"]], nonexistent: [],
            options: [
                "--listen-address=2001:db8::1", "--txt-record=t.lab,hello world,two \"q\"", "--mx-host=lab,mail.lab,10",
                "--srv-host=_sip._tcp.lab,sip.lab,5060,1,2", "--cname=c.lab,h.lab", "--auth-zone=lab", "--auth-server=ns.lab,198.18.0.1",
                "--auth-soa=2026112601,hostmaster.lab",
            ])
        _ = try lab.startSilentDNS(in: server, address: "198.18.0.3")
        let hostile = try lab.launchHelper("hostile-dns-server.py", ["198.18.0.4"], in: server, label: "hostile-dns")
        try hostile.waitUntilReady(marker: "listening")
        let configPath = try lab.script("dns.yml", Self.dnsModules)
        let blackbox = try lab.launch(
            ["prometheus-blackbox-exporter", "--config.file=\(configPath)", "--web.listen-address=127.0.0.1:19115"],
            in: client, label: "blackbox")
        try waitForPort(19115, in: client, server: blackbox)
        _ = try startExporter(["--config", configPath, "--allow", "198.18.0.0/15", "--allow", "2001:db8::/32", "--allow", "203.0.113.0/24"],
                              in: client)
        for probe in Self.dnsCases { try compareDNS(probe, in: client) }
        try compareDNS(("soa", "198.18.0.1", 0, "dns_authority_rrs"), in: client, serial: 2_026_112_601)
    }

    /// The client (198.18.0.2, 2001:db8::2) and the server (`serverAddresses`, 2001:db8::1),
    /// one link between them, for the dns prober's tests.
    func dnsNamespaces(serverAddresses: [String]) throws -> (client: Namespace, server: Namespace) {
        try Privilege.requireRootAndTools(["ip", "python3", "dnsmasq", "prometheus-blackbox-exporter"])
        let client = try lab.namespace("client")
        let server = try lab.namespace("server")
        try lab.veth("v0", in: client, peer: "f0", in: server)
        try client.ip("addr", "add", "198.18.0.2/24", "dev", "v0")
        try client.ip("-6", "addr", "add", "2001:db8::2/64", "dev", "v0", "nodad")
        for address in serverAddresses { try server.ip("addr", "add", address, "dev", "f0") }
        try server.ip("-6", "addr", "add", "2001:db8::1/64", "dev", "f0", "nodad")
        try client.waitFor(link: "v0", operstate: "UP")
        try server.waitFor(link: "f0", operstate: "UP")
        return (client, server)
    }

    /// One probe asked of both exporters: the same verdict, the expected one and its reason,
    /// the same record counts and serial, and the same metric names and labels.
    private func compareDNS(_ probe: DNSCase, in namespace: Namespace, serial: Double? = nil) throws {
        let (module, target) = (probe.module, probe.target)
        let (mine, blackboxSamples) = try probeBoth(module: module, target: target, in: namespace)
        let exact = [
            "probe_success", "probe_ip_protocol", "probe_ip_addr_hash", "probe_dns_query_succeeded", "probe_dns_answer_rrs",
            "probe_dns_authority_rrs", "probe_dns_additional_rrs", "probe_dns_serial",
        ]
        for name in exact { XCTAssertEqual(mine[name], blackboxSamples[name], "\(module) \(target): \(name)") }
        XCTAssertEqual(mine["probe_success"], probe.success, "\(module) \(target)")
        if let serial { XCTAssertEqual(mine["probe_dns_serial"], serial, "\(module) \(target)") }
        let reasons = mine.keys.filter { $0.hasPrefix("reach_probe_failure_info") }
        XCTAssertEqual(reasons, probe.reason.map { ["reach_probe_failure_info{reason=\"\($0)\"}"] } ?? [], "\(module) \(target)")
        let ourNames = Set(mine.keys.filter { !$0.hasPrefix("reach_") })
        XCTAssertEqual(ourNames, Set(blackboxSamples.keys), "\(module) \(target): the same series as blackbox_exporter")
    }
}

import Foundation
import XCTest

/// The dns prober's dns_over_tls (RFC 7858) beside blackbox_exporter 0.23 with the same
/// modules: dnsmasq over TCP behind python3's ssl (Helpers/tls-relay.py), with certificates
/// from a CA the test makes.
///
/// ```
///  client  v0 198.18.0.2/24 ──── f0 198.18.0.1  server: dnsmasq on 53 (UDP and TCP);
///                                               TLS to it on 853 (valid certificate),
///                                               8853 (expired), 8854 (for other.lab)
/// ```
extension ExporterTests {
    private static func dotModules(ca: String) -> String {
        """
        modules:
          dot:
            prober: dns
            dns:
              query_name: h.lab
              query_type: A
              preferred_ip_protocol: ip4
              transport_protocol: tcp
              dns_over_tls: true
              tls_config: {ca_file: \(ca)}
              validate_answer_rrs:
                fail_if_not_matches_regexp: ['\\tA\\t198\\.18\\.0\\.6$']
          dot_system_roots:
            prober: dns
            dns: {query_name: h.lab, query_type: A, preferred_ip_protocol: ip4, transport_protocol: tcp, dns_over_tls: true}
          dot_named:
            prober: dns
            dns:
              query_name: h.lab
              preferred_ip_protocol: ip4
              transport_protocol: tcp
              dns_over_tls: true
              tls_config: {ca_file: \(ca), server_name: other.lab}

        """
    }

    func testDNSOverTLSAnswersAsBlackboxExporterDoes() throws {
        let (client, server) = try dnsNamespaces(serverAddresses: ["198.18.0.1/24"])
        _ = try lab.startDNSMasq(in: server, address: "198.18.0.1", records: ["h.lab": ["198.18.0.6"]], nonexistent: [])
        let certificates = "\(lab.directory)/certificates"
        try FileManager.default.createDirectory(atPath: certificates, withIntermediateDirectories: true)
        let made = try server.exec(["/usr/bin/python3", try HelperScript.path("make-test-certificates.py"), certificates])
        guard made.status == 0 else { throw HarnessError("make-test-certificates.py failed: \(made)") }
        for (port, certificate) in [(853, "valid"), (8853, "expired"), (8854, "wrongname")] {
            let files = ["\(certificates)/\(certificate).pem", "\(certificates)/\(certificate)-key.pem"]
            let relay = try lab.launchHelper(
                "tls-relay.py", ["198.18.0.1", String(port)] + files + ["198.18.0.1", "53"], in: server, label: "tls-relay-\(port)")
            try relay.waitUntilReady(marker: "listening")
        }
        let configPath = try lab.script("dot.yml", Self.dotModules(ca: "\(certificates)/ca.pem"))
        let blackbox = try lab.launch(
            ["prometheus-blackbox-exporter", "--config.file=\(configPath)", "--web.listen-address=127.0.0.1:19115"], in: client,
            label: "blackbox")
        try waitForPort(19115, in: client, server: blackbox)
        _ = try startExporter(["--config", configPath, "--allow", "198.18.0.0/15"], in: client)
        // The module, the target (853 unless a port is given), and reach's reason; nil: success.
        let cases: [(module: String, target: String, reason: String?)] = [
            ("dot", "198.18.0.1", nil), ("dot", "198.18.0.1:853", nil), ("dot", "198.18.0.1:8853", "certificate_expired"),
            ("dot", "198.18.0.1:8854", "certificate_wrong_name"), ("dot_named", "198.18.0.1:8854", nil),
            ("dot_system_roots", "198.18.0.1", "certificate_untrusted"), ("dot", "198.18.0.1:53", "tls_handshake"),
        ]
        for (module, target, reason) in cases {
            let label = "\(module) \(target)"
            let (mine, theirs) = try probeBoth(module: module, target: target, in: client)
            XCTAssertEqual(mine["probe_success"], reason == nil ? 1 : 0, label)
            let exact = [
                "probe_success", "probe_dns_query_succeeded", "probe_dns_answer_rrs", "probe_dns_authority_rrs", "probe_dns_additional_rrs",
            ]
            for name in exact { XCTAssertEqual(mine[name], theirs[name], "\(label): \(name)") }
            let reasons = mine.keys.filter { $0.hasPrefix("reach_probe_failure_info") }
            XCTAssertEqual(reasons, reason.map { ["reach_probe_failure_info{reason=\"\($0)\"}"] } ?? [], label)
            XCTAssertEqual(Set(mine.keys.filter { !$0.hasPrefix("reach_") }), Set(theirs.keys), "\(label): the same series")
        }
    }
}

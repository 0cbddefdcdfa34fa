import Foundation
import TestSupport
import XCTest

/// The grpc prober with `tls: true`, beside blackbox_exporter 0.23 with the same modules,
/// against grpcio's health service over TLS (Helpers/grpc-health-server.py with a
/// certificate from a CA the test makes: valid, expired, for another name) and over
/// plaintext, where the handshake fails.
///
/// ```
///  far: 50061 TLS, valid certificate   50062 expired   50063 for other.lab
///       50064 plaintext
/// ```
extension ExporterTests {
    private static func grpcTLSModules(ca: String) -> String {
        """
        modules:
          grpc_tls:
            prober: grpc
            grpc: {tls: true, preferred_ip_protocol: ip4, tls_config: {ca_file: \(ca)}}
          grpc_tls_up:
            prober: grpc
            grpc: {tls: true, service: up, tls_config: {ca_file: \(ca)}}
          grpc_tls_system_roots: {prober: grpc, grpc: {tls: true, preferred_ip_protocol: ip4}}
          grpc_tls_insecure:
            prober: grpc
            grpc: {tls: true, preferred_ip_protocol: ip4, tls_config: {insecure_skip_verify: true}}
          grpc_tls_named:
            prober: grpc
            grpc: {tls: true, preferred_ip_protocol: ip4, tls_config: {ca_file: \(ca), server_name: other.lab}}

        """
    }

    /// The values that do not depend on timing, equal in both exporters' answers.
    private static let grpcTLSCompared = [
        "probe_success", "probe_grpc_ssl", "probe_grpc_status_code", "probe_ssl_earliest_cert_expiry",
        "probe_grpc_healthcheck_response{serving_status=\"SERVING\"}",
    ]

    func testGRPCOverTLSAnswersAsBlackboxExporterDoes() throws {
        let net = try network()
        try Privilege.requireRootAndTools(["prometheus-blackbox-exporter"])
        let certificates = try makeTestCertificates(in: net.far)
        for (port, certificate) in [(50061, "valid"), (50062, "expired"), (50063, "wrongname"), (50064, "")] {
            let files = certificate.isEmpty ? [] : ["\(certificates)/\(certificate).pem", "\(certificates)/\(certificate)-key.pem"]
            try startGRPCHealthServer(port: port, tls: files, in: net.far)
        }
        try startBesideBlackbox(
            "grpc-tls.yml", modules: Self.grpcTLSModules(ca: "\(certificates)/ca.pem"),
            allowing: ["198.18.0.0/15", "2001:db8::/32", "far.lab"], in: net.client)
        // The module, the target, and the failure reason reach must give; nil: success.
        let cases: [(module: String, target: String, reason: String?)] = [
            ("grpc_tls", "far.lab:50061", nil), ("grpc_tls", "198.18.0.1:50061", nil), ("grpc_tls_up", "far.lab:50061", nil),
            ("grpc_tls", "far.lab:50062", "certificate_expired"), ("grpc_tls", "far.lab:50063", "certificate_wrong_name"),
            ("grpc_tls_system_roots", "far.lab:50061", "certificate_untrusted"), ("grpc_tls_insecure", "far.lab:50062", nil),
            ("grpc_tls_named", "far.lab:50063", nil), ("grpc_tls", "far.lab:50064", "tls_handshake"),
        ]
        for (module, target, reason) in cases {
            let label = "\(module) \(target)"
            let (mine, theirs) = try probeBoth(module, target, reason: reason, in: net.client)
            for name in Self.grpcTLSCompared where reason == nil || !name.hasPrefix("probe_ssl") {
                XCTAssertEqual(mine[name], theirs[name], "\(label): \(name)")
            }
            guard reason == nil else { continue }
            // The same series, labels included (the TLS version, the leaf's fingerprint,
            // subject, issuer and names).
            XCTAssertEqual(Set(theirs.keys).subtracting(mine.keys), [], "\(label): blackbox_exporter's, not reach's")
            let tlsSeries = { (all: [String: Double]) in Set(all.keys.filter { $0.hasPrefix("probe_ssl") || $0.hasPrefix("probe_tls") }) }
            XCTAssertEqual(tlsSeries(mine), tlsSeries(theirs), "\(label): TLS series")
            XCTAssertFalse(tlsSeries(mine).isEmpty, "\(label): no TLS series")
        }
        // Where blackbox_exporter 0.23 fails and reach answers: grpc-go is given an IPv6
        // literal target without its brackets ("2001:db8::1:50061").
        let ipv6Query = "/probe?module=grpc_tls_up&target=%5B2001%3Adb8%3A%3A1%5D%3A50061"
        let ipv6 = samples(try get("http://127.0.0.1:10115\(ipv6Query)", in: net.client).body)
        XCTAssertEqual(ipv6["probe_success"], 1, "grpc_tls_up [2001:db8::1]:50061")
        XCTAssertEqual(ipv6["probe_grpc_ssl"], 1, "grpc_tls_up [2001:db8::1]:50061")
    }
}

import Foundation
import XCTest

/// The tcp prober's TLS, beside blackbox_exporter 0.23 with the same modules: `tls: true`
/// against a POP3S-style banner server, and `starttls: true` in an SMTP conversation
/// (RFC 3207), each with certificates from a CA the test makes (valid, expired, for another
/// name), served by python3's ssl module (Helpers/line-server.py).
///
/// ```
///  far: 9951 TLS banner, valid certificate   9952 expired   9953 for other.lab
///       2587 SMTP with STARTTLS, valid        2588 expired
///       2525 plain SMTP (no TLS at all)
/// ```
extension ExporterTests {
    private static func tcpTLSModules(ca: String) -> String {
        """
        modules:
          pop3s_banner:
            prober: tcp
            tcp:
              query_response:
                - expect: "^\\\\+OK"
              tls: true
              tls_config: {ca_file: \(ca)}
          tls_system_roots: {prober: tcp, tcp: {tls: true}}
          tls_insecure: {prober: tcp, tcp: {tls: true, tls_config: {insecure_skip_verify: true}}}
          tls_named: {prober: tcp, tcp: {tls: true, tls_config: {ca_file: \(ca), server_name: other.lab}}}
          smtp_starttls:
            prober: tcp
            tcp:
              tls_config: {ca_file: \(ca)}
              query_response:
                - expect: "^220 ([^ ]+) ESMTP (.+)$"
                - send: "EHLO prober\\r"
                - expect: "^250-STARTTLS"
                - send: "STARTTLS\\r"
                - expect: "^220"
                - starttls: true
                - send: "EHLO prober\\r"
                - expect: "^250-AUTH"
                - send: "QUIT\\r"
          smtp_starttls_regex:
            prober: tcp
            tcp:
              tls_config: {ca_file: \(ca)}
              query_response:
                - send: "EHLO prober\\r"
                - expect: "^250-STARTTLS"
                - send: "STARTTLS\\r"
                - expect: "^220 go"
                - starttls: true
                - send: "QUIT\\r"
                - expect: "^250-NOTHING"

        """
    }

    /// The values that do not depend on timing, equal in both exporters' answers.
    private static let tcpTLSCompared = [
        "probe_success", "probe_failed_due_to_regex", "probe_ssl_earliest_cert_expiry", "probe_ssl_last_chain_expiry_timestamp_seconds",
    ]

    func testTCPTLSAndStartTLSAnswerAsBlackboxExporterDoes() throws {
        let net = try network()
        try Privilege.requireRootAndTools(["prometheus-blackbox-exporter"])
        let certificates = try makeTestCertificates(in: net.far)
        let servers = [
            (9951, "tlsbanner", "valid"), (9952, "tlsbanner", "expired"), (9953, "tlsbanner", "wrongname"), (2587, "starttls", "valid"),
            (2588, "starttls", "expired"), (2525, "smtp", ""),
        ]
        for (port, mode, certificate) in servers {
            let files = certificate.isEmpty ? [] : ["\(certificates)/\(certificate).pem", "\(certificates)/\(certificate)-key.pem"]
            let server = try lab.launchHelper("line-server.py", ["::", String(port), mode] + files, in: net.far, label: "line-\(port)")
            try server.waitUntilReady(marker: "listening")
        }
        try startBesideBlackbox(
            "tcp-tls.yml", modules: Self.tcpTLSModules(ca: "\(certificates)/ca.pem"),
            allowing: ["198.18.0.0/15", "2001:db8::/32", "far.lab"], in: net.client)
        // The module, the target, and the failure reason reach must give; nil: success.
        let cases: [(module: String, target: String, reason: String?)] = [
            ("pop3s_banner", "far.lab:9951", nil), ("pop3s_banner", "198.18.0.1:9951", nil), ("pop3s_banner", "[2001:db8::1]:9951", nil),
            ("pop3s_banner", "far.lab:9952", "certificate_expired"), ("pop3s_banner", "far.lab:9953", "certificate_wrong_name"),
            ("tls_system_roots", "far.lab:9951", "certificate_untrusted"), ("tls_insecure", "far.lab:9952", nil),
            ("tls_named", "far.lab:9953", nil), ("pop3s_banner", "far.lab:2525", "tls_handshake"),
            ("smtp_starttls", "far.lab:2587", nil), ("smtp_starttls", "198.18.0.1:2587", nil),
            ("smtp_starttls", "far.lab:2588", "certificate_expired"),
            // After STARTTLS, a pattern that no line matches: the TLS metrics stay.
            ("smtp_starttls_regex", "far.lab:2587", "query_response_not_matched"),
        ]
        for (module, target, reason) in cases {
            let label = "\(module) \(target)"
            let (mine, theirs) = try probeBoth(module, target, reason: reason, in: net.client)
            for name in Self.tcpTLSCompared {
                XCTAssertEqual(mine[name], theirs[name], "\(label): \(name)")
            }
            // The same series, labels included (the TLS version, the leaf's fingerprint,
            // subject, issuer and names).
            XCTAssertEqual(Set(theirs.keys).subtracting(mine.keys), [], "\(label): blackbox_exporter's, not reach's")
            let tlsSeries = { (all: [String: Double]) in Set(all.keys.filter { $0.hasPrefix("probe_ssl") || $0.hasPrefix("probe_tls") }) }
            XCTAssertEqual(tlsSeries(mine), tlsSeries(theirs), "\(label): TLS series")
            if reason == nil || module == "smtp_starttls_regex" { XCTAssertFalse(tlsSeries(mine).isEmpty, "\(label): no TLS series") }
        }
    }
}

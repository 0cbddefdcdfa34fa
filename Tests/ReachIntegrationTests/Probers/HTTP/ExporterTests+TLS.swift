import Foundation
import XCTest

/// The http prober over TLS, beside blackbox_exporter 0.23 on the same nginx targets with
/// the same modules: certificates from a CA the test makes (valid, expired, for another
/// name), a TLS 1.2-only server, redirects between http and https, and the module keys
/// that judge a response (patterns, method and body, fail_if_ssl / fail_if_not_ssl).
///
/// ```
///  far (nginx): 8443 valid certificate   8444 expired   8445 for other.lab (TLS 1.3 or 1.2)
///               8446 valid, TLS 1.2 only  8447 valid, HTTP/2 by ALPN
///               8090 plain: redirects to https://far.lab:8443/
///               8448 valid (python): hostile answers over TLS (hostile-http-server.py)
///               8091 an OAuth 2.0 token endpoint and a resource behind it (oauth2-server.py)
///               3128 an HTTP proxy (connect-proxy.py) that alone resolves only.proxy; no CONNECT to 8444
///               3129 the same inside TLS (an https:// proxy)   3130 the same, asking for Basic credentials
///               1080 a SOCKS5 proxy (microsocks)   1081 the same, asking for a user name and password
///               8443/to-plain redirects to http://far.lab:8080/ (python's http.server)
/// ```
extension ExporterTests {
    /// The certificates' directory.
    private func startHTTPSServer(in far: Namespace) throws -> String {
        let certificates = "\(lab.directory)/certificates"
        try FileManager.default.createDirectory(atPath: certificates, withIntermediateDirectories: true)
        let made = try far.exec(["/usr/bin/python3", try HelperScript.path("make-test-certificates.py"), certificates])
        guard made.status == 0 else { throw HarnessError("make-test-certificates.py failed: \(made)") }
        // nginx 1.22's default protocols stop at TLS 1.2.
        func server(_ port: Int, _ certificate: String, _ extra: String = "ssl_protocols TLSv1.2 TLSv1.3;", http2: Bool = false) -> String {
            let listen = http2 ? "ssl http2" : "ssl"
            return """
                    server {
                        listen \(port) \(listen); listen [::]:\(port) \(listen);
                        ssl_certificate \(certificates)/\(certificate).pem; ssl_certificate_key \(certificates)/\(certificate)-key.pem;
                        \(extra)
                        location /to-plain { return 302 http://far.lab:8080/; }
                        location /gzip {
                            gzip on; gzip_min_length 1; gzip_types text/plain; return 200 "hello over TLS, compressed\\n";
                        }
                        location / { add_header X-Probe "tls-test"; return 200 "hello over TLS\\n"; }
                    }

                """
        }
        let temporary = "\(lab.directory)/nginx"
        let configuration = """
            daemon off; master_process off; user root; pid \(temporary).pid; error_log stderr notice;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(temporary)-body; proxy_temp_path \(temporary)-proxy; fastcgi_temp_path \(temporary)-fastcgi;
                uwsgi_temp_path \(temporary)-uwsgi; scgi_temp_path \(temporary)-scgi;
            \(server(8443, "valid"))\(server(8444, "expired"))\(server(8445, "wrongname"))\
            \(server(8446, "valid", "ssl_protocols TLSv1.2;"))\(server(8447, "valid", http2: true))
                server { listen 8090; listen [::]:8090; location / { return 302 https://far.lab:8443/; } }
            }

            """
        let nginx = try lab.launch(["nginx", "-c", try lab.script("nginx.conf", configuration), "-e", "stderr"], in: far, label: "nginx")
        for port in [8443, 8444, 8445, 8446, 8447, 8090] { try waitForPort(port, in: far, server: nginx) }
        let hostile = try lab.launch(
            [
                "python3", try HelperScript.path("hostile-http-server.py"), "::", "8448", "\(certificates)/valid.pem",
                "\(certificates)/valid-key.pem",
            ],
            in: far, label: "hostile-https")
        try waitForPort(8448, in: far, server: hostile)
        try startProxies(certificates: certificates, in: far)
        let oauth2 = try lab.launch(["python3", try HelperScript.path("oauth2-server.py"), "::", "8091"], in: far, label: "oauth2")
        try waitForPort(8091, in: far, server: oauth2)
        return certificates
    }

    /// The proxies of proxy_url: HTTP (plain, over TLS, asking for credentials) and SOCKS5.
    private func startProxies(certificates: String, in far: Namespace) throws {
        let proxy = try lab.launch(
            ["python3", try HelperScript.path("connect-proxy.py"), "::", "3128", "only.proxy=198.18.0.1", "far.lab=2001:db8::1"], in: far,
            label: "proxy")
        try waitForPort(3128, in: far, server: proxy)
        let proxies = [
            ("3129", ["--tls", "\(certificates)/valid.pem", "\(certificates)/valid-key.pem"]), ("3130", ["--auth", "reach:s3cret"]),
        ]
        // A plain request through a proxy names its host (Go's absolute-form carries the Host),
        // and the proxy resolves it.
        for (port, options) in proxies {
            let server = try lab.launch(
                ["python3", try HelperScript.path("connect-proxy.py"), "::", port] + options + ["far.lab=2001:db8::1"], in: far,
                label: "proxy-\(port)")
            try waitForPort(Int(port) ?? 0, in: far, server: server)
        }
        let socks = try lab.launch(["microsocks", "-i", "::", "-p", "1080"], in: far, label: "socks")
        let socksAuth = try lab.launch(
            ["microsocks", "-i", "::", "-p", "1081", "-u", "reach", "-P", "s3cret"], in: far, label: "socks-auth")
        try waitForPort(1080, in: far, server: socks)
        try waitForPort(1081, in: far, server: socksAuth)
    }

    /// The modules both exporters read, one file.
    private static func modules(certificates: String) -> String {
        let ca = "tls_config: {ca_file: \(certificates)/ca.pem}"
        return """
            modules:
              https_ca: {prober: http, http: {\(ca)}}
              https_system: {prober: http}
              https_insecure: {prober: http, http: {tls_config: {insecure_skip_verify: true}}}
              https_tls13: {prober: http, http: {tls_config: {ca_file: \(certificates)/ca.pem, min_version: TLS13}}}
              https_fail_ssl: {prober: http, http: {fail_if_ssl: true, \(ca)}}
              http_fail_not_ssl: {prober: http, http: {fail_if_not_ssl: true, \(ca)}}
              https_body: {prober: http, http: {\(ca), fail_if_body_not_matches_regexp: ["hello over"]}}
              https_body_fails: {prober: http, http: {\(ca), fail_if_body_matches_regexp: ["hello"]}}
              https_header_fails:
                {prober: http, http: {\(ca), fail_if_header_not_matches: [{header: X-Probe, regexp: "^other"}]}}
              https_header_missing:
                {prober: http, http: {\(ca), fail_if_header_matches: [{header: X-None, regexp: "a", allow_missing: true}]}}
              https_post:
                {prober: http, http: {\(ca), method: POST, body: "a=1", headers: {X-Test: "yes"}, valid_http_versions: ["HTTP/1.1"]}}
              https_h2_only: {prober: http, http: {\(ca), valid_http_versions: ["HTTP/2.0"]}}
              https_h2_post: {prober: http, http: {\(ca), method: POST, body: "a=1", fail_if_body_not_matches_regexp: ["over TLS"]}}
              https_no_h2: {prober: http, http: {\(ca), enable_http2: false}}
              oauth2_ok:
                prober: http
                http:
                  oauth2:
                    client_id: reach
                    client_secret: s3cret
                    token_url: "http://198.18.0.1:8091/token"
                    scopes: [probe, read]
                    endpoint_params: {audience: lab}
              oauth2_bad:
                {prober: http, http: {oauth2: {client_id: reach, client_secret: other, token_url: "http://198.18.0.1:8091/token"}}}
              https_gzip:
                prober: http
                http: {\(ca), compression: gzip, headers: {Accept-Encoding: gzip}, fail_if_body_not_matches_regexp: [", compressed"]}

            """
    }

    /// The modules that go through a proxy.
    private static func proxyModules(certificates: String) -> String {
        let ca = "tls_config: {ca_file: \(certificates)/ca.pem}"
        return """
          https_proxy: {prober: http, http: {\(ca), proxy_url: "http://198.18.0.1:3128"}}
          https_proxy_skip:
            prober: http
            http:
              proxy_url: "http://[2001:db8::1]:3128/"
              skip_resolve_phase_with_proxy: true
              tls_config: {ca_file: \(certificates)/ca.pem, server_name: far.lab}
          http_proxy: {prober: http, http: {proxy_url: "http://198.18.0.1:3128"}}
          http_proxy_skip: {prober: http, http: {proxy_url: "http://198.18.0.1:3128", skip_resolve_phase_with_proxy: true}}
          https_via_https_proxy: {prober: http, http: {\(ca), proxy_url: "https://far.lab:3129"}}
          http_via_https_proxy: {prober: http, http: {\(ca), proxy_url: "https://far.lab:3129/"}}
          https_untrusted_proxy: {prober: http, http: {proxy_url: "https://far.lab:3129", tls_config: {insecure_skip_verify: false}}}
          proxy_auth: {prober: http, http: {\(ca), proxy_url: "http://reach:s3cret@198.18.0.1:3130"}}
          proxy_no_auth: {prober: http, http: {proxy_url: "http://198.18.0.1:3130"}}
          socks: {prober: http, http: {\(ca), proxy_url: "socks5://198.18.0.1:1080"}}
          socks_auth: {prober: http, http: {\(ca), proxy_url: "socks5://reach:s3cret@[2001:db8::1]:1081"}}
          socks_bad_auth: {prober: http, http: {proxy_url: "socks5://reach:other@198.18.0.1:1081"}}
          oauth2_proxy:
            prober: http
            http:
              oauth2:
                client_id: reach
                client_secret: s3cret
                token_url: "http://198.18.0.1:8091/token"
                proxy_url: "http://198.18.0.1:3130"

        """
    }

    private func startBothExporters(certificates: String, in client: Namespace) throws {
        let configPath = try lab.script(
            "blackbox-tls.yml", Self.modules(certificates: certificates) + Self.proxyModules(certificates: certificates))
        let blackbox = try lab.launch(
            ["prometheus-blackbox-exporter", "--config.file=\(configPath)", "--web.listen-address=127.0.0.1:19115"], in: client,
            label: "blackbox")
        try waitForPort(19115, in: client, server: blackbox)
        _ = try startExporter(
            [
                "--config", configPath, "--allow", "198.18.0.0/15", "--allow", "2001:db8::/32", "--allow", "far.lab", "--allow",
                "only.proxy",
            ], in: client)
    }

    /// The values that do not depend on timing, equal in both exporters' answers.
    private static let comparedValues = [
        "probe_success", "probe_http_status_code", "probe_http_version", "probe_http_ssl", "probe_http_redirects",
        "probe_http_content_length", "probe_http_uncompressed_body_length", "probe_failed_due_to_regex", "probe_ssl_earliest_cert_expiry",
        "probe_ssl_last_chain_expiry_timestamp_seconds",
    ]

    /// The module, the target, and the failure reason reach must give; nil: success.
    private static let cases: [(module: String, target: String, reason: String?)] = [
        ("https_ca", "https://far.lab:8443/", nil), ("https_ca", "https://198.18.0.1:8443/", nil),
        ("https_ca", "https://[2001:db8::1]:8443/", nil), ("https_ca", "https://far.lab:8444/", "certificate_expired"),
        ("https_ca", "https://far.lab:8445/", "certificate_wrong_name"),
        ("https_system", "https://far.lab:8443/", "certificate_untrusted"),
        ("https_insecure", "https://far.lab:8444/", nil), ("https_insecure", "https://far.lab:8445/", nil),
        ("https_ca", "https://far.lab:8446/", nil), ("https_tls13", "https://far.lab:8446/", "tls_handshake"),
        ("https_tls13", "https://far.lab:8443/", nil), ("https_fail_ssl", "https://far.lab:8443/", "ssl"),
        ("http_fail_not_ssl", "http://far.lab:8080/", "not_ssl"), ("http_fail_not_ssl", "http://far.lab:8090/", nil),
        ("https_ca", "https://far.lab:8443/to-plain", nil), ("http_fail_not_ssl", "https://far.lab:8443/to-plain", "not_ssl"),
        ("https_body", "https://far.lab:8443/", nil), ("https_body_fails", "https://far.lab:8443/", "body_regex"),
        ("https_header_fails", "https://far.lab:8443/", "header_regex"), ("https_header_missing", "https://far.lab:8443/", nil),
        ("https_post", "https://far.lab:8443/", nil),
        // HTTP/2 by ALPN where the server offers it (probe_http_version 2), unless enable_http2 is off.
        ("https_ca", "https://far.lab:8447/", nil), ("https_h2_only", "https://far.lab:8447/", nil),
        ("https_h2_only", "https://far.lab:8443/", "http_version"), ("https_h2_post", "https://[2001:db8::1]:8447/", nil),
        ("https_no_h2", "https://far.lab:8447/", nil), ("https_post", "https://far.lab:8447/", "http_version"),
        // The body decoded before it is judged; one that is not gzip fails to decode.
        ("https_gzip", "https://far.lab:8443/gzip", nil), ("https_gzip", "https://far.lab:8447/gzip", nil),
        ("https_gzip", "https://far.lab:8443/", "body_decoding"),
        // Through a proxy: CONNECT for https, the absolute-form for http; only.proxy is a
        // name the proxy alone resolves.
        ("https_proxy", "https://far.lab:8443/", nil), ("https_proxy", "https://far.lab:8444/", "proxy_refused"),
        ("https_proxy_skip", "https://only.proxy:8443/", nil), ("http_proxy_skip", "http://only.proxy:8080/", nil),
        ("http_proxy", "http://only.proxy:8080/", "name_not_resolved"),
        // https:// proxies (TLS to the proxy, checked with the module's tls_config), Basic
        // proxy credentials, and SOCKS5 with RFC 1929's user name and password.
        ("https_via_https_proxy", "https://far.lab:8443/", nil), ("http_via_https_proxy", "http://far.lab:8080/", nil),
        ("http_proxy", "http://far.lab:8080/", nil), ("https_untrusted_proxy", "http://far.lab:8080/", "proxy_refused"),
        ("proxy_auth", "https://far.lab:8443/", nil), ("proxy_auth", "http://far.lab:8080/", nil),
        ("proxy_no_auth", "http://far.lab:8080/", "status_code"), ("proxy_no_auth", "https://far.lab:8443/", "proxy_refused"),
        ("socks", "https://far.lab:8443/", nil), ("socks", "http://[2001:db8::1]:8080/", nil),
        ("socks_auth", "https://far.lab:8443/", nil), ("socks_bad_auth", "http://far.lab:8080/", "proxy_refused"),
        // oauth2's own proxy_url: the token request through a proxy that wants credentials
        // oauth2's proxy_url does not carry, so no token comes.
        ("oauth2_proxy", "http://far.lab:8091/resource", "oauth2_token"),
        // oauth2: the client-credentials grant, its token as the bearer.
        ("oauth2_ok", "http://far.lab:8091/resource", nil), ("oauth2_bad", "http://far.lab:8091/resource", "oauth2_token"),
    ]

    func testHTTPSProbesAnswerAsBlackboxExporterDoes() throws {
        let net = try network()
        try Privilege.requireRootAndTools(["nginx", "prometheus-blackbox-exporter"])
        let certificates = try startHTTPSServer(in: net.far)
        try startBothExporters(certificates: certificates, in: net.client)
        for (module, target, reason) in Self.cases {
            let query = "/probe?module=\(module)&target=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            let header = ["X-Prometheus-Scrape-Timeout-Seconds:3"]
            let theirs = try get("http://127.0.0.1:19115\(query)", in: net.client, headers: header)
            let ours = try get("http://127.0.0.1:10115\(query)", in: net.client, headers: header)
            XCTAssertEqual(ours.status, 200, "\(module) \(target): \(ours.body)")
            let (mine, blackbox) = (samples(ours.body), samples(theirs.body))
            XCTAssertEqual(mine["probe_success"], reason == nil ? 1 : 0, "\(module) \(target)")
            let reasons = mine.filter { $0.key.hasPrefix("reach_probe_failure_info") }
            XCTAssertEqual(reasons, reason.map { ["reach_probe_failure_info{reason=\"\($0)\"}": 1.0] } ?? [:], "\(module) \(target)")
            for name in Self.comparedValues {
                XCTAssertEqual(mine[name], blackbox[name], "\(module) \(target): \(name)")
            }
            // The same series, labels included (the TLS version, the leaf's fingerprint,
            // subject, issuer and names), but for the timings' and reach's own.
            XCTAssertEqual(Set(blackbox.keys).subtracting(mine.keys), [], "\(module) \(target): blackbox_exporter's, not reach's")
            let tlsSeries = { (all: [String: Double]) in Set(all.keys.filter { $0.hasPrefix("probe_ssl") || $0.hasPrefix("probe_tls") }) }
            XCTAssertEqual(tlsSeries(mine), tlsSeries(blackbox), "\(module) \(target): TLS series")
        }
        try checkReachAlone(in: net.client)
    }

    /// What is not compared with blackbox_exporter.
    private func checkReachAlone(in client: Namespace) throws {
        // A hostile server over TLS: a failed probe with its reason, and the exporter still answers.
        let hostile = [("/endless-headers", "malformed_response"), ("/garbage", "malformed_response"), ("/close", "connection_closed")]
        for (path, reason) in hostile {
            let query = "/probe?module=https_ca&target=https://far.lab:8448\(path)"
            try checkFailure(query, reason: reason, in: client)
        }
        // The absolute-form to a resolved address, through the proxy. Not beside blackbox_exporter:
        // through this test's proxy, its request to [2001:db8::1]:8080 gets no answer in time.
        let proxied = try get(
            "http://127.0.0.1:10115/probe?module=http_proxy&target=http://far.lab:8080/", in: client,
            headers: ["X-Prometheus-Scrape-Timeout-Seconds:3"])
        XCTAssertEqual(samples(proxied.body)["probe_success"], 1, proxied.body)
    }

    /// reach's answer to `query`: a failed probe, for `reason`.
    private func checkFailure(_ query: String, reason: String, in client: Namespace) throws {
        let ours = try get("http://127.0.0.1:10115\(query)", in: client, headers: ["X-Prometheus-Scrape-Timeout-Seconds:3"])
        XCTAssertEqual(ours.status, 200, "\(query): \(ours.body)")
        let mine = samples(ours.body)
        XCTAssertEqual(mine["probe_success"], 0, query)
        XCTAssertEqual(mine["reach_probe_failure_info{reason=\"\(reason)\"}"], 1, "\(query): \(ours.body)")
    }
}

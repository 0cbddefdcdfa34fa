#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import XCTest

/// The two files Debian's prometheus-blackbox-exporter package ships, read unchanged from
/// where it installs them, and every module in them asked of reach-exporter and of
/// blackbox_exporter 0.23 side by side, against real servers that answer each module as it
/// expects. Both exporters trust the test's CA through SSL_CERT_FILE, as Go's crypto/x509
/// reads it (`crypto/x509/root_unix.go`), so the modules that verify against the system's
/// roots can succeed.
///
/// ```
///  client  both exporters; 127.0.0.1:3128 an HTTP proxy (connect-proxy.py)
///     │
///  far 198.18.0.1 2001:db8::1 (far.lab)
///      8080 python's http.server        8092 nginx: vhost.example.com, login.example.com
///      2587 SMTP with STARTTLS          (basic auth), any other name (gzip, POST), /static/
///                                       (gzip always)
///      1143 IMAP with STARTTLS          9951 a POP3S-style banner over TLS
///      2222 an SSH banner               6667 IRC registration
///      50051 gRPC health, plaintext     50061 gRPC health over TLS
///      53 dnsmasq: www.prometheus.io, the zone prometheus.io (SOA)
/// ```
extension ExporterTests {
    static let debianBlackboxFile = "/etc/prometheus/blackbox.yml"
    static let debianExampleFile = "/usr/share/doc/prometheus-blackbox-exporter/examples/example.yml"

    /// One module of a Debian file: the target it is probed on, the server that answers
    /// there (see the drawing above), and whether both exporters must call the probe a
    /// success.
    private typealias DebianCase = (module: String, target: String, server: String, success: Bool)

    /// /etc/prometheus/blackbox.yml: its 10 modules.
    private static let blackboxFileCases: [DebianCase] = [
        ("http_2xx", "http://far.lab:8080/", "http.server", true),
        ("http_post_2xx", "http://far.lab:8092/", "nginx", true),
        ("tcp_connect", "far.lab:8080", "http.server", true),
        // A POP3 greeting is "+OK" (RFC 1939, 4), but in RE2 the module's "^+OK" is "^"
        // repeated, then "OK": it matches no line that begins with "+". Both fail on the
        // regex after the TLS handshake, the certificate metrics set.
        ("pop3s_banner", "far.lab:9951", "POP3S banner", false),
        ("grpc", "far.lab:50061", "gRPC over TLS", true),
        ("grpc_plain", "far.lab:50051", "gRPC plaintext", true),
        ("ssh_banner", "far.lab:2222", "SSH banner", true),
        ("irc_banner", "far.lab:6667", "IRC", true),
        ("icmp", "far.lab", "far's kernel", true),
        ("icmp_ttl5", "far.lab", "far's kernel", true),
    ]

    /// /usr/share/doc/prometheus-blackbox-exporter/examples/example.yml: its 16 modules.
    private static let exampleFileCases: [DebianCase] = [
        ("http_2xx_example", "http://far.lab:8092/", "nginx vhost.example.com", true),
        // The proxy resolves the name (skip_resolve_phase_with_proxy).
        ("http_with_proxy", "http://far.lab:8080/", "proxy, http.server", true),
        ("http_post_2xx", "http://far.lab:8092/", "nginx", true),
        ("http_basic_auth_example", "http://far.lab:8092/", "nginx login.example.com", true),
        // ca_file /certs/my_cert.crt exists on no machine: the TLS configuration fails
        // before any connection, in both.
        ("http_custom_ca_example", "https://far.lab:9951/", "POP3S banner", false),
        ("http_gzip", "http://far.lab:8092/static/hello.txt", "nginx gzip_static", true),
        // Not asked for gzip (blackbox_exporter sends no Accept-Encoding of its own), nginx
        // answers the identity: a body that does not decode as gzip fails both.
        ("http_gzip", "http://far.lab:8092/", "nginx", false),
        ("http_gzip_with_accept_encoding", "http://far.lab:8092/", "nginx", true),
        ("tls_connect", "far.lab:9951", "POP3S banner", true),
        ("tcp_connect_example", "far.lab:8080", "http.server", true),
        ("imap_starttls", "far.lab:1143", "IMAP STARTTLS", true),
        ("smtp_starttls", "far.lab:2587", "SMTP STARTTLS", true),
        ("irc_banner_example", "far.lab:6667", "IRC", true),
        ("icmp_example", "127.0.0.1", "lo", true),
        // From source_ip_address 127.0.0.1 nothing leaves for another host: the kernel routes
        // no loopback source out of v0 (net/ipv4/route.c, __mkroute_output: EINVAL).
        ("icmp_example", "198.18.0.1", "far's kernel", false),
        // The module's regexes ask for an answer that is 127.0.0.1 (fail_if_not_matches) and
        // for one that is not (fail_if_matches): no answer passes both, in either exporter.
        ("dns_udp_example", "198.18.0.1", "dnsmasq", false),
        ("dns_soa", "198.18.0.1", "dnsmasq", true),
        ("dns_tcp_example", "198.18.0.1", "dnsmasq", true),
    ]

    /// The series whose values do not depend on timing, equal in both answers (by name,
    /// whatever their labels).
    private static let debianComparedNames: Set<String> = [
        "probe_success", "probe_ip_protocol", "probe_failed_due_to_regex", "probe_http_status_code", "probe_http_version",
        "probe_http_ssl", "probe_http_redirects", "probe_http_content_length", "probe_http_uncompressed_body_length",
        "probe_ssl_earliest_cert_expiry", "probe_ssl_last_chain_expiry_timestamp_seconds", "probe_ssl_last_chain_info",
        "probe_tls_version_info", "probe_dns_query_succeeded", "probe_dns_answer_rrs", "probe_dns_authority_rrs",
        "probe_dns_additional_rrs", "probe_dns_serial", "probe_grpc_status_code", "probe_grpc_ssl", "probe_grpc_healthcheck_response",
        "probe_icmp_reply_hop_limit",
    ]

    func testDebianBlackboxFileModulesAnswerAsBlackboxExporterDoes() throws {
        try compareDebianFile(Self.debianBlackboxFile, cases: Self.blackboxFileCases, modules: 10)
    }

    func testDebianExampleFileModulesAnswerAsBlackboxExporterDoes() throws {
        try compareDebianFile(Self.debianExampleFile, cases: Self.exampleFileCases, modules: 16)
    }

    /// Every module of `file` (`modules` of them) probed as `cases` say, by both exporters.
    private func compareDebianFile(_ file: String, cases: [DebianCase], modules: Int) throws {
        let net = try network()
        try Privilege.requireRootAndTools(["prometheus-blackbox-exporter", "nginx", "dnsmasq"])
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            try ContinuousIntegration.cannotRun("no \(file): scripts/install-deps.sh test installs prometheus-blackbox-exporter")
        }
        // The modules are the keys indented by two spaces under "modules:".
        let names = text.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") && $0.hasSuffix(":") }
        XCTAssertEqual(Set(cases.map(\.module)), Set(names.map { String($0.dropFirst(2).dropLast()) }), "\(file): a case for each module")
        XCTAssertEqual(names.count, modules, file)
        let certificates = try startDebianServers(in: net)
        try startBesideBlackbox(
            configFile: file, allowing: ["198.18.0.0/15", "2001:db8::/32", "far.lab", "127.0.0.1"],
            environment: ["SSL_CERT_FILE=\(certificates)/ca.pem"], in: net.client)
        for probe in cases {
            let label = "\(probe.module) \(probe.target) (\(probe.server))"
            let query = "/probe?module=\(probe.module)&target=\(probe.target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            let header = ["X-Prometheus-Scrape-Timeout-Seconds:6"]
            var theirs = samples(try get("http://127.0.0.1:19115\(query)", in: net.client, headers: header).body)
            // reach's one departure, by design (reach-exporter(1)): without TLS the grpc prober
            // has no probe_ssl_earliest_cert_expiry, which blackbox_exporter sets to 0, the epoch.
            if probe.module.hasPrefix("grpc"), theirs["probe_grpc_ssl"] == 0, theirs["probe_ssl_earliest_cert_expiry"] == 0 {
                theirs["probe_ssl_earliest_cert_expiry"] = nil
            }
            let ours = try get("http://127.0.0.1:10115\(query)", in: net.client, headers: header)
            XCTAssertEqual(ours.status, 200, "\(label): \(ours.body)")
            let mine = samples(ours.body).filter { !$0.key.hasPrefix("reach_") }
            XCTAssertEqual(theirs["probe_success"], probe.success ? 1 : 0, "blackbox_exporter: \(label)")
            XCTAssertEqual(mine["probe_success"], theirs["probe_success"], label)
            XCTAssertEqual(Set(mine.keys.map(Self.shape)), Set(theirs.keys.map(Self.shape)), "\(label): metric and label names")
            for (key, value) in theirs where Self.debianComparedNames.contains(Self.metricName(key)) {
                XCTAssertEqual(mine[key], value, "\(label): \(key)")
            }
        }
    }

    /// A series' name and its labels' names, without their values: "name{a,b}".
    private static func shape(_ key: String) -> String {
        guard let brace = key.firstIndex(of: "{") else { return key }
        let labels = key[key.index(after: brace)...].split(separator: ",").map { $0.split(separator: "=").first ?? "" }
        return "\(key[..<brace]){\(labels.joined(separator: ","))}"
    }

    private static func metricName(_ key: String) -> String {
        String(key.prefix { $0 != "{" })
    }

    /// The servers of the drawing above, in the far namespace but for the proxy, which the
    /// module names at 127.0.0.1 beside the exporters. The certificates' directory.
    private func startDebianServers(in net: Network) throws -> String {
        let certificates = try makeTestCertificates(in: net.far)
        let (valid, key) = ("\(certificates)/valid.pem", "\(certificates)/valid-key.pem")
        let lines: [(port: Int, mode: String, files: [String])] = [
            (2587, "starttls", [valid, key]), (1143, "imapstarttls", [valid, key]), (9951, "tlsbanner", [valid, key]),
            (2222, "ssh", []), (6667, "irc", []),
        ]
        for (port, mode, files) in lines {
            let server = try lab.launchHelper("line-server.py", ["::", String(port), mode] + files, in: net.far, label: "line-\(port)")
            try server.waitUntilReady(marker: "listening")
        }
        try startGRPCHealthServer(port: 50051, in: net.far)
        try startGRPCHealthServer(port: 50061, tls: [valid, key], in: net.far)
        let proxy = try lab.launchHelper("connect-proxy.py", ["127.0.0.1", "3128"], in: net.client, label: "proxy")
        try waitForPort(3128, in: net.client, server: proxy)
        _ = try lab.startDNSMasq(
            in: net.far, address: "198.18.0.1", records: ["www.prometheus.io": ["198.18.0.6", "2001:db8::6"]], nonexistent: [],
            options: [
                "--auth-zone=prometheus.io", "--auth-server=ns.prometheus.io,198.18.0.1", "--auth-soa=2026112601,hostmaster.prometheus.io",
            ])
        try startDebianNginx(in: net.far)
        return certificates
    }

    /// nginx on 8092: what http_2xx_example's patterns ask of vhost.example.com, basic
    /// authentication ({PLAIN}, nginx's ngx_http_auth_basic_module) for login.example.com,
    /// and a gzip-compressed text for any other name. `return` comes before the access phase
    /// in nginx, so the authenticated server answers through try_files instead.
    private func startDebianNginx(in far: Namespace) throws {
        let temporary = "\(lab.directory)/nginx-debian"
        let users = try lab.script("nginx-users", "username:{PLAIN}mysecret\n")
        // gzip_static always (ngx_http_gzip_static_module) sends hello.txt.gz whatever the
        // request accepts: gzip unasked.
        try FileManager.default.createDirectory(atPath: "\(lab.directory)/static", withIntermediateDirectories: true)
        let hello = try lab.script("static/hello.txt", "hello, compressed unasked\n")
        _ = try Subprocess.check(["gzip", "-k", "-n", hello])
        let configuration = """
            daemon off; master_process off; user root; pid \(temporary).pid; error_log stderr notice;
            events { worker_connections 64; }
            http {
                access_log off; default_type text/plain;
                client_body_temp_path \(temporary)-body; proxy_temp_path \(temporary)-proxy; fastcgi_temp_path \(temporary)-fastcgi;
                uwsgi_temp_path \(temporary)-uwsgi; scgi_temp_path \(temporary)-scgi;
                server {
                    listen 8092 default_server; listen [::]:8092 default_server;
                    gzip on; gzip_min_length 1; gzip_types text/plain;
                    location / { return 200 "hello, compressed when asked\\n"; }
                    location /static/ { root \(lab.directory); gzip_static always; }
                }
                server {
                    listen 8092; listen [::]:8092; server_name vhost.example.com;
                    location / {
                        add_header Access-Control-Allow-Origin "example.com";
                        return 200 "Download the latest version here\\n";
                    }
                }
                server {
                    listen 8092; listen [::]:8092; server_name login.example.com;
                    location / { auth_basic "lab"; auth_basic_user_file \(users); try_files /nothing @welcome; }
                    location @welcome { return 200 "welcome\\n"; }
                }
            }

            """
        let nginx = try lab.launch(
            ["nginx", "-c", try lab.script("nginx-debian.conf", configuration), "-e", "stderr"], in: far, label: "nginx-debian")
        try waitForPort(8092, in: far, server: nginx)
    }
}

import ReachSystem
import TestSupport
import XCTest

@testable import ReachExporter

final class ExporterConfigurationTests: XCTestCase {
    func error(_ yaml: String, checkingImplemented: Bool = true) -> String? {
        do {
            _ = try ExporterConfiguration.parse(yaml, checkingImplemented: checkingImplemented)
            return nil
        } catch {
            return error.message
        }
    }

    private func module(_ yaml: String) throws -> ExporterModule {
        try XCTUnwrap(ExporterConfiguration.parse(yaml, checkingImplemented: false).first)
    }

    func testWhatReachRuns() throws {
        let modules = try ExporterConfiguration.parse("""
            modules:
              icmp_v4:
                prober: icmp
                timeout: 2s
                icmp:
                  preferred_ip_protocol: ip4
                  ip_protocol_fallback: false
              web:
                prober: http
                timeout: 500ms
                http:
                  method: GET
                  follow_redirects: false
                  valid_status_codes: [200, 204]
              ssh:
                prober: tcp
                timeout: 1m30s
              kernel:
                prober: route
            """)
        XCTAssertEqual(modules.map(\.name), ["icmp_v4", "web", "ssh", "kernel"])
        XCTAssertEqual(modules[0].prober, .icmp)
        XCTAssertEqual(modules[0].timeout, .seconds(2))
        XCTAssertEqual(modules[0].preferredIPProtocol, .ip4)
        XCTAssertFalse(modules[0].ipProtocolFallback)
        XCTAssertEqual(modules[1].timeout, .milliseconds(500))
        XCTAssertEqual(modules[1].validStatusCodes, [200, 204])
        XCTAssertFalse(modules[1].followRedirects)
        XCTAssertTrue(modules[2].followRedirects)
        XCTAssertTrue(modules[1].accepts(statusCode: 204))
        XCTAssertFalse(modules[1].accepts(statusCode: 201))
        XCTAssertEqual(modules[2].timeout, .seconds(90))
        XCTAssertEqual(modules[2].preferredIPProtocol, .ip6)
        XCTAssertTrue(modules[2].ipProtocolFallback)
        XCTAssertTrue(modules[2].accepts(statusCode: 299))
        XCTAssertNil(modules[3].timeout)
    }

    func testBlackboxDefaults() throws {
        let module = try module("modules:\n  m:\n    prober: http\n")
        XCTAssertEqual(module.http, HTTPProberSettings())
        XCTAssertEqual(module.http.method, "GET")
        XCTAssertTrue(module.http.client.followRedirects)
        XCTAssertTrue(module.http.client.enableHTTP2)
        XCTAssertNil(module.http.bodySizeLimit)
        XCTAssertEqual(module.icmp.ttl, 64)
        XCTAssertEqual(module.dns.queryType, "ANY")
        XCTAssertEqual(module.dns.queryClass, "IN")
        XCTAssertEqual(module.dns.transportProtocol, "udp")
        XCTAssertEqual(module.dns.validRcodes, ["NOERROR"])
        XCTAssertTrue(module.dns.recursionDesired)
        XCTAssertTrue(module.tcp.address.ipProtocolFallback)
        XCTAssertEqual(module.grpc.service, "")
        XCTAssertFalse(module.grpc.tls)
    }

    func testEveryHTTPKey() throws {
        let http = try module("""
            modules:
              m:
                prober: http
                http:
                  valid_status_codes: [200, 301]
                  valid_http_versions: ["HTTP/1.1", "HTTP/2.0"]
                  preferred_ip_protocol: ip4
                  ip_protocol_fallback: no
                  skip_resolve_phase_with_proxy: yes
                  no_follow_redirects: true
                  fail_if_ssl: false
                  fail_if_not_ssl: on
                  method: POST
                  headers:
                    Content-Type: application/json
                    Accept-Encoding: gzip
                  fail_if_body_matches_regexp: ["error"]
                  fail_if_body_not_matches_regexp: ["^ok$"]
                  fail_if_header_matches:
                    - header: Set-Cookie
                      allow_missing: true
                      regexp: '.*'
                  fail_if_header_not_matches:
                    - header: Server
                      regexp: 'nginx'
                  body: '{}'
                  compression: gzip
                  body_size_limit: 1MB
                  bearer_token_file: /run/token
                  proxy_url: http://127.0.0.1:3128
                  enable_http2: false
                  tls_config:
                    ca_file: /etc/ssl/ca.pem
                    cert_file: /etc/ssl/c.pem
                    key_file: /etc/ssl/c.key
                    server_name: example.com
                    insecure_skip_verify: true
                    min_version: TLS13
            """).http
        try checkEveryHTTPKey(http)
    }

    private func checkEveryHTTPKey(_ http: HTTPProberSettings) throws {
        XCTAssertEqual(http.validStatusCodes, [200, 301])
        XCTAssertEqual(http.validHTTPVersions, ["HTTP/1.1", "HTTP/2.0"])
        XCTAssertEqual(http.address.preferredIPProtocol, .ip4)
        XCTAssertFalse(http.address.ipProtocolFallback)
        XCTAssertTrue(http.skipResolvePhaseWithProxy)
        XCTAssertFalse(http.client.followRedirects, "no_follow_redirects, deprecated, still read")
        XCTAssertFalse(http.failIfSSL)
        XCTAssertTrue(http.failIfNotSSL)
        XCTAssertEqual(http.method, "POST")
        XCTAssertEqual(http.headers.map(\.name), ["Content-Type", "Accept-Encoding"])
        XCTAssertEqual(http.failIfBodyMatchesRegexp.map(\.pattern), ["error"])
        XCTAssertTrue(http.failIfBodyNotMatchesRegexp[0].matches("ok"))
        XCTAssertFalse(http.failIfBodyNotMatchesRegexp[0].matches("ok\n"), "$ is the end of the text, as in Go")
        XCTAssertEqual(http.failIfHeaderMatches, [.init(header: "Set-Cookie", regexp: try BlackboxRegex(".*"), allowMissing: true)])
        XCTAssertEqual(http.failIfHeaderNotMatches.first?.allowMissing, false)
        XCTAssertEqual(http.body, "{}")
        XCTAssertEqual(http.compression, "gzip")
        XCTAssertEqual(http.bodySizeLimit, 1 << 20)
        XCTAssertEqual(http.client.authorization, .init(type: "Bearer", credentials: "", credentialsFile: "/run/token"))
        XCTAssertEqual(http.client.proxyURL, "http://127.0.0.1:3128")
        XCTAssertFalse(http.client.enableHTTP2)
        XCTAssertEqual(http.client.tls.caFile, "/etc/ssl/ca.pem")
        XCTAssertEqual(http.client.tls.serverName, "example.com")
        XCTAssertTrue(http.client.tls.insecureSkipVerify)
        XCTAssertEqual(http.client.tls.minVersion, .tls13)
    }

    func testHTTPClientCredentials() throws {
        let basic = try module("""
            modules:
              m:
                prober: http
                http:
                  basic_auth: {username: u, password_file: /run/p}
            """).http.client
        XCTAssertEqual(basic.basicAuth, .init(username: "u", password: "", passwordFile: "/run/p"))
        let oauth = try module("""
            modules:
              m:
                prober: http
                http:
                  oauth2:
                    client_id: id
                    client_secret: s
                    scopes: [a, b]
                    token_url: https://auth.example/token
                    endpoint_params: {audience: x}
            """).http.client.oauth2
        XCTAssertEqual(oauth?.scopes, ["a", "b"])
        XCTAssertEqual(oauth?.endpointParams, [HeaderField(name: "audience", value: "x")])
        // prometheus/common's HTTPClientConfig.Validate, word for word.
        let http = "modules:\n  m:\n    prober: http\n    http:\n"
        XCTAssertEqual(error(http + "      bearer_token: a\n      bearer_token_file: b\n", checkingImplemented: false),
                       "line 5: at most one of bearer_token & bearer_token_file must be configured")
        XCTAssertEqual(error(http + "      basic_auth: {username: u}\n      bearer_token: a\n", checkingImplemented: false),
                       "line 5: at most one of basic_auth, oauth2, bearer_token & bearer_token_file must be configured")
        XCTAssertEqual(error(http + "      oauth2: {client_id: a, token_url: 'http://x/'}\n", checkingImplemented: false),
                       "line 5: either oauth2 client_secret or client_secret_file must be configured")
        XCTAssertEqual(error(http + "      authorization: {type: Basic}\n", checkingImplemented: false),
                       #"line 5: authorization type cannot be set to "basic", use "basic_auth" instead"#)
        XCTAssertEqual(error(http + "      compression: gzip\n      headers: {Accept-Encoding: br}\n", checkingImplemented: false),
                       #"line 5: invalid configuration "Accept-Encoding: br", "compression: gzip""#)
    }

    func testEveryTCPKey() throws {
        let tcp = try module("""
            modules:
              m:
                prober: tcp
                tcp:
                  preferred_ip_protocol: ip4
                  ip_protocol_fallback: false
                  source_ip_address: 198.51.100.1
                  query_response:
                    - expect: "^220 ([^ ]+) ESMTP"
                    - send: "EHLO ${1}\\r"
                    - starttls: true
                  tls: true
                  tls_config: {insecure_skip_verify: true}
            """).tcp
        XCTAssertEqual(tcp.address.sourceIPAddress, "198.51.100.1")
        XCTAssertEqual(tcp.queryResponse.count, 3)
        XCTAssertEqual(tcp.queryResponse[0].expect?.pattern, "^220 ([^ ]+) ESMTP")
        XCTAssertEqual(tcp.queryResponse[1].send, "EHLO ${1}\r")
        XCTAssertTrue(tcp.queryResponse[2].startTLS)
        XCTAssertTrue(tcp.tls)
        XCTAssertTrue(tcp.tlsConfig.insecureSkipVerify)
    }

    func testEveryICMPDNSAndGRPCKey() throws {

        let icmp = try module("""
            modules:
              m:
                prober: icmp
                icmp: {source_ip_address: "2001:db8::1", payload_size: 56, dont_fragment: true, ttl: 5}
            """).icmp
        XCTAssertEqual(icmp.address.sourceIPAddress, "2001:db8::1")
        XCTAssertEqual(icmp.payloadSize, 56)
        XCTAssertTrue(icmp.dontFragment)
        XCTAssertEqual(icmp.ttl, 5)

        let dns = try module("""
            modules:
              m:
                prober: dns
                dns:
                  query_name: example.com
                  query_type: SOA
                  query_class: CH
                  transport_protocol: tcp
                  dns_over_tls: true
                  recursion_desired: false
                  valid_rcodes: [NOERROR, NXDOMAIN]
                  validate_answer_rrs:
                    fail_if_matches_regexp: [".*127.0.0.1"]
                    fail_if_all_match_regexp: ["a"]
                    fail_if_not_matches_regexp: ["b"]
                    fail_if_none_matches_regexp: ["c"]
                  validate_authority_rrs: {fail_if_matches_regexp: ["d"]}
                  validate_additional_rrs: {fail_if_matches_regexp: ["e"]}
            """).dns
        XCTAssertEqual(dns.queryName, "example.com")
        XCTAssertEqual(dns.queryType, "SOA")
        XCTAssertEqual(dns.queryClass, "CH")
        XCTAssertEqual(dns.transportProtocol, "tcp")
        XCTAssertTrue(dns.dnsOverTLS)
        XCTAssertFalse(dns.recursionDesired)
        XCTAssertEqual(dns.validRcodes, ["NOERROR", "NXDOMAIN"])
        XCTAssertEqual(dns.validateAnswer.failIfNoneMatchesRegexp.map(\.pattern), ["c"])
        XCTAssertEqual(dns.validateAdditional.failIfMatchesRegexp.map(\.pattern), ["e"])

        let grpc = try module("modules:\n  m:\n    prober: grpc\n    grpc: {service: s1, tls: true, preferred_ip_protocol: ip4}\n").grpc
        XCTAssertEqual(grpc.service, "s1")
        XCTAssertTrue(grpc.tls)
        XCTAssertEqual(grpc.address.preferredIPProtocol, .ip4)
    }

    func testBlackboxRefusals() {
        let checked: [(String, String)] = [
            ("modules:\n  m:\n    prober: dns\n    dns: {query_type: A}\n", "line 4: dns: query name must be set for DNS module"),
            ("modules:\n  m:\n    prober: dns\n    dns: {query_name: a, query_type: AA}\n",
             "line 4: dns.query_type: 'AA' is not a name blackbox_exporter knows"),
            ("modules:\n  m:\n    prober: dns\n    dns: {query_name: a, transport_protocol: quic}\n",
             "line 4: dns.transport_protocol: 'quic' is not one of udp, tcp"),
            ("modules:\n  m:\n    prober: icmp\n    icmp: {ttl: 256}\n", "line 4: icmp.ttl: 256 is not within 0-255"),
            ("modules:\n  m:\n    prober: icmp\n    icmp: {ttl: -1}\n", "line 4: icmp.ttl: -1 is not within 0-255"),
            ("modules:\n  m:\n    prober: http\n    http:\n      fail_if_header_matches: [{regexp: a}]\n",
             "line 5: http.fail_if_header_matches: header name must be set for HTTP header matchers"),
            ("modules:\n  m:\n    prober: http\n    http: {valid_status_codes: [200, 600]}\n",
             "line 4: http.valid_status_codes: 600 is not within 100-599"),
            ("modules:\n  m:\n    prober: http\n    http: {preferred_ip_protocol: ip5}\n",
             "line 4: http.preferred_ip_protocol: 'ip5' is neither ip4 nor ip6"),
            ("modules:\n  m:\n    prober: http\n    http: {body_size_limit: lots}\n",
             "line 4: http.body_size_limit: 'lots' is not a size (1024, 512KB, 10MB)"),
            ("modules:\n  m:\n    prober: tcp\n    tcp: {source_ip_address: somewhere}\n",
             "line 4: tcp.source_ip_address: 'somewhere' is not an IP address"),
            ("modules:\n  m:\n    prober: http\n    http: {tls_config: {min_version: TLS14}}\n",
             "line 4: http.tls_config.min_version: 'TLS14' is not one of TLS10, TLS11, TLS12, TLS13"),
            ("modules:\n  m:\n    prober: http\n    http: {fail_if_ssl: maybe}\n",
             "line 4: http.fail_if_ssl: expected true or false, not 'maybe'"),
        ]
        for (yaml, message) in checked { XCTAssertEqual(error(yaml, checkingImplemented: false), message, yaml) }
    }

    func testUnknownAndDuplicateKeysAreNamedWithTheirLine() {
        XCTAssertEqual(error("""
            modules:
              web:
                prober: http
                http:
                  fail_if_body_matches: ["x"]
            """), "line 5: http.fail_if_body_matches: unknown key (blackbox_exporter 0.23 has no such setting)")
        XCTAssertEqual(error("global: 1\n"), "line 1: global: unknown key (blackbox_exporter 0.23 has no such setting)")
        XCTAssertEqual(error("modules:\n  p:\n    prober: icmp\n    prober: tcp\n"), "line 4: prober: mapping key already defined")
        XCTAssertEqual(
            error("modules:\n  p:\n    prober: smtp\n"),
            "line 3: unknown prober 'smtp' (http, tcp, icmp, dns, grpc or reach's route or trace)")
        XCTAssertEqual(error("modules:\n  p:\n    timeout: 1s\n"), "line 3: module 'p' has no prober")
        XCTAssertEqual(error("modules:\n  p:\n    prober: icmp\n    timeout: soon\n"),
                       "line 4: timeout: not a duration: 'soon' (5s, 500ms, 1m30s)")
        XCTAssertEqual(error(""), "empty: no modules")
        XCTAssertEqual(error("modules:\n  p:\n    prober: icmp\n    \"a\\nb\\u0007\": 1\n"),
                       "line 4: a?b?: unknown key (blackbox_exporter 0.23 has no such setting)")
        XCTAssertEqual(error("modules: [unclosed\n"), "line 2: not YAML: did not find expected ',' or ']' (while parsing a flow sequence)")
    }

    /// What reach does not run yet is refused at load, naming the key and its line; values
    /// that are blackbox_exporter's defaults pass, as do the other probers' settings.
    func testKeysNotYetRunAreRefused() {
        XCTAssertEqual(error("modules:\n  d:\n    prober: dns\n    dns: {query_name: a, dns_over_tls: true}\n"),
                       "line 4: dns.dns_over_tls: needs transport_protocol: tcp")
        // Proxies in the schemes Go's transport speaks to, the http prober's and oauth2's.
        XCTAssertNil(error("modules:\n  w:\n    prober: http\n    http:\n      proxy_url: socks5://proxy.lab:1080\n"))
        let oauth2 = "    http:\n      oauth2:\n        client_id: a\n        client_secret: b\n        token_url: http://t.lab/\n"
        XCTAssertNil(error("modules:\n  w:\n    prober: http\n" + oauth2 + "        proxy_url: https://proxy.lab\n"))
        XCTAssertEqual(error("modules:\n  w:\n    prober: http\n" + oauth2 + "        proxy_url: socks4://proxy.lab\n"),
                       "line 9: http.oauth2.proxy_url: 'socks4://proxy.lab': socks4:// proxies are not supported "
                           + "(http, https and socks5 are)")
        XCTAssertNil(error("modules:\n  g:\n    prober: grpc\n    grpc: {tls: true, tls_config: {server_name: lab.test}}\n"))
        XCTAssertNil(error("""
            modules:
              w:
                prober: http
                http: {method: GET, fail_if_ssl: false, no_follow_redirects: false, tls_config: {insecure_skip_verify: false}}
                tcp: {tls: true}
              i:
                prober: icmp
                icmp: {preferred_ip_protocol: ip4, ttl: ~}
            """))
    }

    /// Debian's two files (prometheus-blackbox-exporter 0.23) are blackbox_exporter's form.
    func testTheFilesDebianShipsParse() throws {
        let files = ["/etc/prometheus/blackbox.yml", "/usr/share/doc/prometheus-blackbox-exporter/examples/example.yml"]
        for path in files {
            guard case .success(let bytes) = FileContents.read(path, limit: 1 << 20) else {
                try ContinuousIntegration.cannotRun("\(path) is missing: apt-get install prometheus-blackbox-exporter")
            }
            let modules = try ExporterConfiguration.parse(String(decoding: bytes, as: UTF8.self), checkingImplemented: false)
            XCTAssertGreaterThanOrEqual(modules.count, 10, path)
        }
        let example = try ExporterConfiguration.parse(
            String(decoding: try FileContents.read(files[1], limit: 1 << 20).get(), as: UTF8.self), checkingImplemented: false)
        let http = try XCTUnwrap(example.first { $0.name == "http_2xx_example" }).http
        XCTAssertEqual(http.headers.first, HeaderField(name: "Host", value: "vhost.example.com"))
        XCTAssertEqual(http.failIfHeaderNotMatches.first?.regexp.pattern, #"(\*|example\.com)"#)
        let dns = try XCTUnwrap(example.first { $0.name == "dns_udp_example" }).dns
        XCTAssertTrue(dns.validateAnswer.failIfNotMatchesRegexp[0].matches("www.prometheus.io.\t300\tIN\tA\t127.0.0.1"))
        let smtp = try XCTUnwrap(example.first { $0.name == "smtp_starttls" }).tcp
        XCTAssertEqual(smtp.queryResponse.count, 9)
    }
}

import ReachCore
import ReachSystem
import XCTest

@testable import ReachExporter

/// `&debug=true`: blackbox_exporter's three parts, in its words, from the probe's own values.
final class ProbeDebugOutputTests: XCTestCase {
    func testTheThreeParts() throws {
        var module = try XCTUnwrap(ExporterConfiguration.parse("""
            modules:
              web:
                prober: http
                timeout: 1m30s
                http:
                  valid_status_codes: [200, 204]
                  preferred_ip_protocol: ip4
            """).first)
        module.http.failIfBodyMatchesRegexp = [try BlackboxRegex("a b")]
        let request = ExporterRouter.ProbeRequest(
            module: module, target: ProbeTarget(host: "web.lab", port: 80, path: "/"), timeout: .milliseconds(9500), debug: true,
            targetText: "http://web.lab/")
        var measurement = ProbeMeasurement(detail: .http(.init()))
        measurement.address = try IPAddress.parse("198.51.100.7")
        measurement.duration = .milliseconds(250)
        measurement.fail(.timedOut)
        let started = RealtimeInstant(nanoseconds: 1_700_000_000_000_000_000)
        let output = ProbeDebugOutput.render(request, target: request.targetText, measurement: measurement, started: started)
        let text = String(decoding: output, as: UTF8.self)
        let prefix = "ts=2023-11-14T22:13:20.000Z module=web target=http://web.lab/"
        XCTAssertTrue(text.hasPrefix("""
            Logs for the probe:
            \(prefix) level=info msg="Beginning probe" probe=http timeout_seconds=9.5
            \(prefix) level=info msg="Resolving target address" target=web.lab ip_protocol=ip4
            \(prefix) level=info msg="Resolved target address" target=web.lab ip=198.51.100.7
            \(prefix) level=error msg="Probe failed" duration_seconds=0.25 reason=timed_out



            Metrics that would have been returned:
            # HELP
            """), text)
        XCTAssertTrue(text.contains("\nprobe_success 0.0\n"), text)
        XCTAssertTrue(text.hasSuffix("""



            Module configuration:
            prober: http
            timeout: 1m30s
            http:
                valid_status_codes: [200, 204]
                preferred_ip_protocol: ip4
                ip_protocol_fallback: true
                fail_if_body_matches_regexp: ["a b"]
                follow_redirects: true
                enable_http2: true
            tcp:
                ip_protocol_fallback: true
            icmp:
                ip_protocol_fallback: true
                ttl: 64
            dns:
                ip_protocol_fallback: true
                recursion_desired: true

            """), text)
    }

    /// Every key the debug output prints, set away from its default: each prober's block in
    /// blackbox_exporter's field order, as its key table lists them.
    func testEveryPrintedKeyInItsPlace() throws {
        let module = try XCTUnwrap(ExporterConfiguration.parse("""
            modules:
              all:
                prober: grpc
                http: {valid_status_codes: [200], valid_http_versions: [HTTP/1.1], preferred_ip_protocol: ip4,
                  ip_protocol_fallback: false, skip_resolve_phase_with_proxy: true, fail_if_ssl: true, fail_if_not_ssl: true,
                  method: POST, fail_if_body_matches_regexp: [x], fail_if_body_not_matches_regexp: [y], body: hello,
                  proxy_url: 'http://proxy.lab:3128', follow_redirects: false, enable_http2: false, compression: gzip,
                  body_size_limit: 1KB}
                tcp: {preferred_ip_protocol: ip4, source_ip_address: 198.51.100.1, tls: true}
                icmp: {source_ip_address: '2001:db8::1', payload_size: 56, dont_fragment: true, ttl: 0}
                dns: {preferred_ip_protocol: ip4, dns_over_tls: true, source_ip_address: 198.51.100.2, transport_protocol: tcp,
                  query_class: CH, query_name: example.lab, query_type: A, recursion_desired: false, valid_rcodes: [NOERROR, NXDOMAIN]}
                grpc: {service: health, tls: true, preferred_ip_protocol: ip4}
            """, checkingImplemented: false).first)
        XCTAssertEqual(module.yaml, Self.everyPrintedKey)
    }

    private static let everyPrintedKey = """
        prober: grpc
        http:
            valid_status_codes: [200]
            valid_http_versions: [HTTP/1.1]
            preferred_ip_protocol: ip4
            skip_resolve_phase_with_proxy: true
            fail_if_ssl: true
            fail_if_not_ssl: true
            method: POST
            fail_if_body_matches_regexp: [x]
            fail_if_body_not_matches_regexp: [y]
            body: hello
            proxy_url: "http://proxy.lab:3128"
            follow_redirects: false
            enable_http2: false
            compression: gzip
            body_size_limit: 1024
        tcp:
            preferred_ip_protocol: ip4
            ip_protocol_fallback: true
            source_ip_address: "198.51.100.1"
            tls: true
        icmp:
            ip_protocol_fallback: true
            source_ip_address: "2001:db8::1"
            payload_size: 56
            dont_fragment: true
            ttl: 0
        dns:
            preferred_ip_protocol: ip4
            ip_protocol_fallback: true
            dns_over_tls: true
            source_ip_address: "198.51.100.2"
            transport_protocol: tcp
            query_class: CH
            query_name: example.lab
            query_type: A
            valid_rcodes: [NOERROR, NXDOMAIN]
        grpc:
            service: health
            tls: true
            ip_protocol_fallback: true
            preferred_ip_protocol: ip4

        """

    func testGoDurations() {
        XCTAssertEqual(ExporterModule.goDuration(.seconds(5)), "5s")
        XCTAssertEqual(ExporterModule.goDuration(.milliseconds(500)), "500ms")
        XCTAssertEqual(ExporterModule.goDuration(.milliseconds(90_500)), "1m30.5s")
        XCTAssertEqual(ExporterModule.goDuration(.seconds(7200)), "2h0m0s")
    }
}

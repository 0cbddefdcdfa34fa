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

    func testGoDurations() {
        XCTAssertEqual(ExporterModule.goDuration(.seconds(5)), "5s")
        XCTAssertEqual(ExporterModule.goDuration(.milliseconds(500)), "500ms")
        XCTAssertEqual(ExporterModule.goDuration(.milliseconds(90_500)), "1m30.5s")
        XCTAssertEqual(ExporterModule.goDuration(.seconds(7200)), "2h0m0s")
    }
}

import ReachCore
import ReachSystem
import XCTest

@testable import ReachExporter

/// The exposition format picked from a scrape's Accept header as client_golang's promhttp
/// picks it (expfmt `Negotiate`), and the exporter's own probe-duration histogram.
final class ExpositionFormatTests: XCTestCase {
    /// What Debian's Prometheus 2.42 sends, captured from its scrapes: with native histograms
    /// on, the protobuf first (q=1); without, OpenMetrics (which the exporter does not write)
    /// then text.
    func testPrometheusAcceptHeaders() {
        let native = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,"
            + "application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,"
            + "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
        XCTAssertEqual(Exposition.format(accepting: native), .protobuf)
        let classic = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
            + "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
        XCTAssertEqual(Exposition.format(accepting: classic), .text)
        XCTAssertEqual(Exposition.Format.protobuf.contentType,
                       "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited")
        XCTAssertEqual(Exposition.Format.text.contentType, "text/plain; version=0.0.4; charset=utf-8")
    }

    /// q-values decide, not the order written; the protobuf needs its proto and encoding;
    /// no header, a wildcard or nonsense mean text.
    func testQualityAndParameters() {
        let protobuf = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"
        XCTAssertEqual(Exposition.format(accepting: "text/plain;q=0.3, \(protobuf);q=0.9"), .protobuf)
        XCTAssertEqual(Exposition.format(accepting: "\(protobuf);q=0.2, text/plain;q=0.3"), .text)
        XCTAssertEqual(Exposition.format(accepting: protobuf), .protobuf)
        XCTAssertEqual(Exposition.format(accepting: "APPLICATION/vnd.google.protobuf;PROTO=io.prometheus.client.MetricFamily;"
            + "encoding=delimited"), .protobuf)
        XCTAssertEqual(Exposition.format(accepting: "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
            + "encoding=text"), .text)
        XCTAssertEqual(Exposition.format(accepting: "application/vnd.google.protobuf;encoding=delimited"), .text)
        XCTAssertEqual(Exposition.format(accepting: "text/plain;version=0.0.5,\(protobuf);q=0.1"), .protobuf)
        XCTAssertEqual(Exposition.format(accepting: nil), .text)
        XCTAssertEqual(Exposition.format(accepting: ""), .text)
        XCTAssertEqual(Exposition.format(accepting: "*/*"), .text)
        XCTAssertEqual(Exposition.format(accepting: ";;,=,q=x;,"), .text)
        // At equal q the more specific range first (goautoneg): the protobuf over */*.
        XCTAssertEqual(Exposition.format(accepting: "*/*;q=0.5,\(protobuf);q=0.5"), .protobuf)
        XCTAssertEqual(Exposition.render([], as: .protobuf), [])
    }

    /// Each probe's duration in its module's histogram; one sample per module, by name.
    func testProbeDurations() throws {
        let durations = ProbeDurations()
        XCTAssertEqual(durations.samples, [])
        durations.record(module: "tcp_connect", duration: .milliseconds(3))
        durations.record(module: "icmp", duration: .milliseconds(1))
        durations.record(module: "icmp", duration: .milliseconds(2))
        let samples = durations.samples
        XCTAssertEqual(samples.map(\.labels), [[.init("module", "icmp")], [.init("module", "tcp_connect")]])
        XCTAssertEqual(samples.map(\.name), [ProbeDurations.name, ProbeDurations.name])
        let icmp = try XCTUnwrap(samples.first?.histogram)
        XCTAssertEqual(icmp.count, 2)
        XCTAssertEqual(icmp.sum, 0.003, accuracy: 1e-12)
        XCTAssertEqual(icmp.layout, .smokeping)
        let text = String(decoding: Exposition.render(samples), as: UTF8.self)
        XCTAssertTrue(text.contains("reach_exporter_probe_duration_seconds_bucket{module=\"icmp\",le=\"0.0016\"} 1\n"), text)
        XCTAssertTrue(text.contains("reach_exporter_probe_duration_seconds_count{module=\"tcp_connect\"} 1\n"), text)
    }
}

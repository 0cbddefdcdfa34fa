import Prometheus
import ReachCore
import ReachSystem
import XCTest

@testable import ReachExporter

/// `reach watch --textfile` writes its metrics with ReachCore's `ExpositionText` (reach does
/// not link swift-prometheus); the exporter with swift-prometheus. Here the two are held
/// equal for the same samples. swift-prometheus emits its families in its dictionary's
/// order, so families are compared as blocks, each block's lines in order.
final class ExpositionTests: XCTestCase {
    private func blocks(_ text: String) -> [String: [String]] {
        var result: [String: [String]] = [:]
        var current: String?
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                let name = String(line.split(separator: " ")[2])
                if line.hasPrefix("# HELP ") || current != name { current = name }
            }
            result[current ?? "", default: []].append(line)
        }
        return result
    }

    /// Labelled families: swift-prometheus keeps their samples in a dictionary too.
    private func normalized(_ blocks: [String: [String]]) -> [String: [String]] {
        blocks.mapValues { lines in
            let header = lines.filter { $0.hasPrefix("#") }
            return header + lines.filter { !$0.hasPrefix("#") }.sorted()
        }
    }

    private func assertSameAsSwiftPrometheus(_ samples: [MetricSample], file: StaticString = #filePath, line: UInt = #line) {
        let ours = ExpositionText.render(samples)
        let theirs = String(decoding: Exposition.render(samples), as: UTF8.self)
        XCTAssertEqual(normalized(blocks(ours)), normalized(blocks(theirs)), file: file, line: line)
        XCTAssertEqual(ours.count, theirs.count, file: file, line: line)
    }

    private func report(reachable: Bool, link: String, gateway: String?, reason: UnreachableReason?) throws -> ReachabilityReport {
        let v4 = PathReport(
            destination: ReachabilityEvaluator.internetDestination(.ipv4), flags: reachable ? [.reachable] : [], reason: reason,
            link: LinkReport(name: link, index: 2, kind: .ethernet, operState: .up),
            gateway: try gateway.map { try IPAddress.parse($0) })
        let v6 = PathReport(destination: ReachabilityEvaluator.internetDestination(.ipv6), flags: [], reason: .noRoute)
        return ReachabilityReport(subject: .internet, paths: [v4, v6])
    }

    func testInternetMetricsRenderAsSwiftPrometheusRendersThem() throws {
        var metrics = InternetMetrics(probing: true)
        let first = RealtimeInstant(nanoseconds: 1_732_532_400_123_000_000)
        let second = RealtimeInstant(nanoseconds: 1_732_532_460_500_000_000)
        metrics.observe(try report(reachable: true, link: "eth0", gateway: "198.51.100.1", reason: nil), at: first)
        metrics.observe(try report(reachable: false, link: "eth0", gateway: nil, reason: .noCarrier), at: second)
        assertSameAsSwiftPrometheus(metrics.samples)
    }

    func testEscapesAndOddValuesRenderAlike() {
        let samples = [
            MetricSample("odd_labels", help: "Back\\slash help", labels: [.init("a", "quote \" back \\ newline \n end")], value: 0.1),
            MetricSample("odd_labels", help: "Back\\slash help", labels: [.init("a", "ünïcode")], value: -2.5e-07),
            MetricSample("big_counter", help: "A counter", kind: .counter, value: 123_456_789),
            MetricSample("no_help", help: "", value: 1e21),
            MetricSample("plain", help: "h", value: 1_732_532_400.123),
        ]
        assertSameAsSwiftPrometheus(samples)
    }

    func testProbeMeasurementsRenderAlike() throws {
        var detail = ProbeMeasurement.ICMP()
        detail.rttSeconds = 0.000_123
        detail.replyHopLimit = 63
        var icmp = ProbeMeasurement(detail: .icmp(detail))
        icmp.success = true
        icmp.address = try IPAddress.parse("198.51.100.7")
        assertSameAsSwiftPrometheus(icmp.samples)
        assertSameAsSwiftPrometheus(ProbeMeasurement(detail: .http(.init())).samples)
        assertSameAsSwiftPrometheus(ProbeMeasurement(detail: .route(nil)).samples)
    }
}

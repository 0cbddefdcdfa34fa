import ReachCore
import ReachExporterProbes
import ReachSystem
import XCTest

@testable import ReachExporter

/// The tcp and grpc probers' metrics: blackbox_exporter 0.23's names, labels and values
/// (`prober/tcp.go`, `prober/grpc.go`), and the reason of a failed probe.
final class ProbeMeasurementProbersTests: XCTestCase {
    func testTCPRegexFailure() {
        var measurement = ProbeMeasurement(detail: .tcp(.init(failedDueToRegex: true)))
        measurement.fail(.queryResponseNotMatched)
        let samples = measurement.samples
        XCTAssertEqual(MetricSample.value(of: "probe_failed_due_to_regex", in: samples), 1)
        XCTAssertEqual(MetricSample.value(of: "reach_probe_failure_info", in: samples,
                                          labels: [.init("reason", "query_response_not_matched")]), 1)
        XCTAssertEqual(MetricSample.value(of: "probe_failed_due_to_regex", in: ProbeMeasurement(detail: .tcp(.init())).samples), 0)
    }

    func testGRPCAnsweredNotServing() throws {
        var grpc = ProbeMeasurement.GRPC()
        grpc.checkSeconds = 0.003
        grpc.servingStatus = .notServing
        var measurement = ProbeMeasurement(detail: .grpc(grpc))
        measurement.address = try IPAddress.parse("198.18.0.1")
        measurement.lookup = .milliseconds(1)
        measurement.fail(.notServing)
        let samples = measurement.samples
        XCTAssertEqual(Set(samples.map(\.name)), [
            "probe_grpc_duration_seconds", "probe_grpc_ssl", "probe_grpc_status_code", "probe_grpc_healthcheck_response",
            "probe_ip_protocol", "probe_dns_lookup_time_seconds", "probe_ip_addr_hash", "reach_probe_failure_info", "probe_success",
            "probe_duration_seconds",
        ])
        for (status, value) in [("UNKNOWN", 0.0), ("SERVING", 0), ("NOT_SERVING", 1), ("SERVICE_UNKNOWN", 0)] {
            XCTAssertEqual(MetricSample.value(of: "probe_grpc_healthcheck_response", in: samples,
                                              labels: [.init("serving_status", status)]), value, status)
        }
        XCTAssertEqual(MetricSample.value(of: "probe_grpc_duration_seconds", in: samples, labels: [.init("phase", "check")]), 0.003)
        XCTAssertEqual(MetricSample.value(of: "probe_grpc_duration_seconds", in: samples, labels: [.init("phase", "resolve")]), 0.001)
        XCTAssertEqual(MetricSample.value(of: "probe_grpc_status_code", in: samples), 0)
        XCTAssertEqual(MetricSample.value(of: "probe_grpc_ssl", in: samples), 0)
        XCTAssertEqual(MetricSample.value(of: "probe_ip_protocol", in: samples), 4)
    }

    /// A name that does not resolve: no call, so no check phase and no serving statuses,
    /// as blackbox_exporter registers them only once the call was made.
    func testGRPCWithoutACall() {
        var measurement = ProbeMeasurement(detail: .grpc(.init()))
        measurement.fail(.nameNotResolved)
        let samples = measurement.samples
        XCTAssertNil(MetricSample.value(of: "probe_grpc_duration_seconds", in: samples, labels: [.init("phase", "check")]))
        XCTAssertNotNil(MetricSample.value(of: "probe_grpc_duration_seconds", in: samples, labels: [.init("phase", "resolve")]))
        XCTAssertFalse(samples.contains { $0.name == "probe_grpc_healthcheck_response" })
        XCTAssertEqual(MetricSample.value(of: "probe_success", in: samples), 0)
    }
}

import XCTest

import ReachCore
import ReachSystem
@testable import ReachExporter

/// What each ping event counts for in the continuous prober's series.
final class SmokepingMetricsTests: XCTestCase {
    private let address = try! IPAddress.parse("198.51.100.1")
    private let labels = [MetricSample.Label("host", "far.lab"), MetricSample.Label("ip", "198.51.100.1")]

    private func probe(_ index: Int) -> PingProbe { PingProbe(target: 0, index: index, sequence: UInt16(index)) }

    private func reply(_ index: Int, milliseconds: Int64, duplicate: Bool = false, corrupted: Bool = false) -> PingEvent {
        .reply(PingReply(probe: probe(index), from: address, ttl: 63, bytes: 64, roundTrip: .milliseconds(milliseconds),
                         duplicate: duplicate, corrupted: corrupted))
    }

    private func value(_ name: String, _ samples: [MetricSample], _ extra: [MetricSample.Label] = []) -> Double? {
        MetricSample.value(of: name, in: samples, labels: labels + extra)
    }

    func testEventsCountAsSmokepingProberCountsThem() {
        let metrics = SmokepingMetrics(layout: .smokeping)
        metrics.activate(0, labels: labels)
        for index in 0..<4 { metrics.observe(.sent(probe(index), bytes: 64), series: 0) }
        metrics.observe(reply(0, milliseconds: 21), series: 0)
        metrics.observe(reply(0, milliseconds: 22, duplicate: true), series: 0)
        metrics.observe(reply(1, milliseconds: 23, corrupted: true), series: 0)
        metrics.observe(.timedOut(probe(2)), series: 0)
        metrics.observe(.sendFailed(probe(4), error: .invalidArgument), series: 0)
        metrics.observe(.sendFailed(probe(5), error: .notPermitted), series: 0)
        metrics.observeReceiveError()
        let samples = metrics.samples
        XCTAssertEqual(value("smokeping_requests_total", samples), 6)
        XCTAssertEqual(value("smokeping_response_duplicates_total", samples), 1)
        XCTAssertEqual(value("smokeping_response_ttl", samples), 63)
        XCTAssertEqual(value("smokeping_send_errors_total", samples), 2)
        XCTAssertEqual(MetricSample.value(of: "smokeping_receive_errors_total", in: samples), 1)
        let histogram = samples.first { $0.name == "smokeping_response_duration_seconds" }?.histogram
        XCTAssertEqual(histogram?.count, 1)
        XCTAssertEqual(histogram?.sum ?? 0, 0.021, accuracy: 1e-9)
        // A blackhole route's EINVAL names its route type; a firewall's EPERM is no route type.
        XCTAssertEqual(value("reach_smokeping_send_refusals_total", samples, [MetricSample.Label("reason", "blackhole_route")]), 1)
        XCTAssertEqual(samples.filter { $0.name == "reach_smokeping_send_refusals_total" }.count, 1)
    }

    func testADepartedAddressLeavesAndComesBackFromZero() {
        let metrics = SmokepingMetrics(layout: .smokeping)
        metrics.activate(0, labels: labels)
        metrics.observe(.sent(probe(0), bytes: 64), series: 0)
        metrics.deactivate(0)
        metrics.observe(.sent(probe(1), bytes: 64), series: 0)
        XCTAssertNil(value("smokeping_requests_total", metrics.samples))
        metrics.activate(0, labels: labels)
        XCTAssertEqual(value("smokeping_requests_total", metrics.samples), 0)
        // No TTL before a reply: the gauge is left out rather than written 0.
        XCTAssertNil(value("smokeping_response_ttl", metrics.samples))
    }
}

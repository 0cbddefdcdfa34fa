import ReachCore
import ReachSystem
import XCTest

@testable import ReachExporter

/// `preferred_ip_protocol: both`: which addresses are probed, how the families' outcomes
/// make one answer, and the series and log lines that say which family did what.
final class ExporterProberFamiliesTests: XCTestCase {
    private func address(_ text: String) throws -> IPAddress { try IPAddress.parse(text) }

    func testTheFirstAddressOfEachFamilyIPv6First() throws {
        let candidates = try ["198.51.100.1", "2001:db8::1", "198.51.100.2", "2001:db8::2"].map(address)
        XCTAssertEqual(ExporterProber.firstOfEachFamily(candidates), try [address("2001:db8::1"), address("198.51.100.1")])
        XCTAssertEqual(ExporterProber.firstOfEachFamily([try address("198.51.100.2")]), [try address("198.51.100.2")])
        XCTAssertEqual(ExporterProber.firstOfEachFamily([]), [])
    }

    private func outcome(_ text: String, success: Bool, failure: ProbeFailureReason? = nil) throws -> ProbeMeasurement {
        var measurement = ProbeMeasurement(detail: .icmp(.init()))
        measurement.address = try address(text)
        measurement.duration = .milliseconds(3)
        measurement.success = success
        measurement.failure = failure
        return measurement
    }

    func testSuccessOnlyWhenEveryFamilySucceeded() throws {
        let bothWell = try XCTUnwrap(ProbeMeasurement.combined([
            outcome("2001:db8::1", success: true), outcome("198.51.100.1", success: true),
        ]))
        XCTAssertTrue(bothWell.success)
        XCTAssertEqual(bothWell.address, try address("2001:db8::1"))
        XCTAssertEqual(bothWell.families.map(\.ipProtocol), [.ip6, .ip4])
        XCTAssertEqual(bothWell.families.map(\.success), [true, true])

        let sixFailed = try XCTUnwrap(ProbeMeasurement.combined([
            outcome("2001:db8::1", success: false, failure: .route(.blackholeRoute)), outcome("198.51.100.1", success: true),
        ]))
        XCTAssertFalse(sixFailed.success)
        XCTAssertEqual(sixFailed.failure, .route(.blackholeRoute))
        XCTAssertEqual(sixFailed.address, try address("2001:db8::1"))
        XCTAssertEqual(sixFailed.families.map(\.success), [false, true])

        let fourFailed = try XCTUnwrap(ProbeMeasurement.combined([
            outcome("2001:db8::1", success: true), outcome("198.51.100.1", success: false, failure: .timedOut),
        ]))
        XCTAssertFalse(fourFailed.success)
        XCTAssertEqual(fourFailed.failure, .timedOut)
        XCTAssertEqual(fourFailed.address, try address("198.51.100.1"))

        let alone = try XCTUnwrap(ProbeMeasurement.combined([outcome("198.51.100.1", success: true)]))
        XCTAssertTrue(alone.success)
        XCTAssertEqual(alone.families.map(\.ipProtocol), [.ip4])
        XCTAssertNil(ProbeMeasurement.combined([]))
    }

    func testOneSeriesPerFamily() throws {
        let combined = try XCTUnwrap(ProbeMeasurement.combined([
            outcome("2001:db8::1", success: false, failure: .route(.blackholeRoute)), outcome("198.51.100.1", success: true),
        ]))
        let samples = combined.samples
        let label = { (value: String) in [MetricSample.Label("ip_protocol", value)] }
        XCTAssertEqual(MetricSample.value(of: "reach_probe_ip_protocol_success", in: samples, labels: label("ip6")), 0)
        XCTAssertEqual(MetricSample.value(of: "reach_probe_ip_protocol_success", in: samples, labels: label("ip4")), 1)
        XCTAssertEqual(MetricSample.value(of: "probe_success", in: samples), 0)
        XCTAssertEqual(MetricSample.value(of: "probe_ip_protocol", in: samples), 6)
        XCTAssertEqual(samples.filter { $0.name == "reach_probe_ip_protocol_success" }.count, 2)
        // A module of one family has none.
        XCTAssertFalse(try outcome("198.51.100.1", success: true).samples.contains { $0.name == "reach_probe_ip_protocol_success" })
    }

    func testANameWithNoAddressIsNotResolved() throws {
        var module = ExporterModule(name: "m", prober: .icmp)
        module.icmp.address.preferredIPProtocol = .both
        let request = ExporterRouter.ProbeRequest(
            module: module, target: ProbeTarget(host: "none.lab", port: nil, path: "/"), timeout: .seconds(1))
        let measurement = try ExporterProber(allow: AllowList(entries: [])).probeEveryFamily(
            [], request, deadline: .now() + .seconds(1), from: ExporterProber.unmeasured(module))
        XCTAssertFalse(measurement.success)
        XCTAssertEqual(measurement.failure, .nameNotResolved)
        XCTAssertEqual(measurement.families, [])
    }

    /// `&debug=true`: each family's address resolved, then each family's end, then the probe's.
    func testTheDebugLogSaysWhichFamilyDidWhat() throws {
        var module = ExporterModule(name: "both", prober: .icmp)
        module.icmp.address.preferredIPProtocol = .both
        module.icmp.address.ipProtocolFallback = false
        let request = ExporterRouter.ProbeRequest(
            module: module, target: ProbeTarget(host: "far.lab", port: nil, path: "/"), timeout: .seconds(2), debug: true,
            targetText: "far.lab")
        var measurement = try XCTUnwrap(ProbeMeasurement.combined([
            outcome("2001:db8::1", success: false, failure: .route(.blackholeRoute)), outcome("198.51.100.1", success: true),
        ]))
        measurement.duration = .milliseconds(5)
        let started = RealtimeInstant(nanoseconds: 1_700_000_000_000_000_000)
        let lines = ProbeDebugOutput.logLines(request, target: "far.lab", measurement: measurement, started: started)
        let prefix = "ts=2023-11-14T22:13:20.000Z module=both target=far.lab"
        XCTAssertEqual(lines, [
            "\(prefix) level=info msg=\"Beginning probe\" probe=icmp timeout_seconds=2.0",
            "\(prefix) level=info msg=\"Resolving target address\" target=far.lab ip_protocol=both",
            "\(prefix) level=info msg=\"Resolved target address\" target=far.lab ip=2001:db8::1",
            "\(prefix) level=info msg=\"Resolved target address\" target=far.lab ip=198.51.100.1",
            "\(prefix) level=error msg=\"Family probe failed\" ip_protocol=ip6 ip=2001:db8::1 duration_seconds=0.003"
                + " reason=blackhole_route",
            "\(prefix) level=info msg=\"Family probe succeeded\" ip_protocol=ip4 ip=198.51.100.1 duration_seconds=0.003",
            "\(prefix) level=error msg=\"Probe failed\" duration_seconds=0.005 reason=blackhole_route",
        ])
        let output = ProbeDebugOutput.render(request, target: "far.lab", measurement: measurement, started: started)
        let text = String(decoding: output, as: UTF8.self)
        XCTAssertTrue(text.contains("\nreach_probe_ip_protocol_success{ip_protocol=\"ip6\"} 0"), text)
        XCTAssertTrue(text.contains("icmp:\n    preferred_ip_protocol: both\n    ttl: 64\n"), text)
    }
}

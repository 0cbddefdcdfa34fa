import ReachCore
import ReachSystem
import XCTest

@testable import ReachExporter

/// The trace module: reach's own prober, its keys, and its metrics from a pass's result.
final class TraceProberTests: XCTestCase {
    private func address(_ text: String) -> IPAddress { try! IPAddress.parse(text) }

    func testReadsItsKeysWithReachTracesDefaults() throws {
        let modules = try ExporterConfiguration.parse("""
            modules:
              path:
                prober: trace
                trace:
                  method: icmp
                  first_hop: 2
                  max_hops: 12
                  probes_per_hop: 2
                  port: 53
                  preferred_ip_protocol: ip4
              plain:
                prober: trace
            """)
        XCTAssertEqual(modules[0].prober, .trace)
        let settings = modules[0].trace.engineSettings(wait: .seconds(9))
        XCTAssertEqual(settings.method, .icmp)
        XCTAssertEqual(settings.firstHop, 2)
        XCTAssertEqual(settings.maxHops, 12)
        XCTAssertEqual(settings.probesPerHop, 2)
        XCTAssertEqual(settings.port, 53)
        XCTAssertEqual(settings.waits.maximum, .seconds(5), "traceroute's 5 s at most")
        XCTAssertEqual(modules[0].preferredIPProtocol, .ip4)
        let plain = modules[1].trace.engineSettings(wait: .milliseconds(800))
        XCTAssertEqual(plain.method, .udp)
        XCTAssertEqual(plain.maxHops, 30)
        XCTAssertEqual(plain.probesPerHop, 1)
        XCTAssertNil(plain.port)
        XCTAssertEqual(plain.waits.maximum, .milliseconds(800), "no longer than the probe's time left")
        // &debug=true's module: the trace block, in the key table's order, blackbox's indents.
        XCTAssertTrue(
            modules[0].yaml.hasSuffix(
                "trace:\n    preferred_ip_protocol: ip4\n    ip_protocol_fallback: true\n    method: icmp\n    first_hop: 2\n"
                    + "    max_hops: 12\n    probes_per_hop: 2\n    port: 53\n"), modules[0].yaml)
        XCTAssertFalse(modules[1].yaml.contains("method:"), "defaults left out: \(modules[1].yaml)")
    }

    func testRefusesWhatATraceCannotBe() {
        let bad = [
            ("method: raw", "method"), ("max_hops: 0", "max_hops"), ("max_hops: 256", "max_hops"),
            ("probes_per_hop: 11", "probes_per_hop"), ("first_hop: 9\n      max_hops: 3", "first_hop"), ("hops: 3", "hops"),
        ]
        for (body, key) in bad {
            let yaml = "modules:\n  t:\n    prober: trace\n    trace:\n      \(body)\n"
            XCTAssertThrowsError(try ExporterConfiguration.parse(yaml), body) { error in
                XCTAssertTrue("\(error)".contains(key), "\(body): \(error)")
                XCTAssertTrue("\(error)".hasPrefix("line "), "\(body): \(error)")
            }
        }
    }

    func testSamplesNameEachHopAndHashThePath() {
        let through2 = ProbeMeasurement.Trace(responders: [address("198.18.0.1"), address("198.18.1.2"), nil, address("198.18.3.2")])
        var measurement = ProbeMeasurement(detail: .trace(through2))
        measurement.success = true
        measurement.address = address("198.18.3.2")
        let samples = measurement.samples
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            samples.first { $0.name == name && Dictionary(uniqueKeysWithValues: $0.labels.map { ($0.name, $0.value) }) == labels }?.value
        }
        XCTAssertEqual(value("reach_trace_hops"), 4)
        XCTAssertEqual(value("reach_trace_hop_info", ["hop": "2", "address": "198.18.1.2"]), 1)
        XCTAssertEqual(value("reach_trace_hop_info", ["hop": "3", "address": ""]), 1, "a silent hop, named as such")
        XCTAssertEqual(value("probe_success"), 1)
        // Another router at hop 2, a hop that falls silent, or one that starts answering: another hash.
        let hashes = [
            through2,
            ProbeMeasurement.Trace(responders: [address("198.18.0.1"), address("198.18.4.2"), nil, address("198.18.3.2")]),
            ProbeMeasurement.Trace(responders: [address("198.18.0.1"), nil, nil, address("198.18.3.2")]),
            ProbeMeasurement.Trace(
                responders: [address("198.18.0.1"), address("198.18.1.2"), address("198.18.2.2"), address("198.18.3.2")]),
        ].map(\.pathHash)
        XCTAssertEqual(Set(hashes).count, 4, "\(hashes)")
        XCTAssertEqual(through2.pathHash, ProbeMeasurement.Trace(responders: through2.responders).pathHash)
        XCTAssertEqual(ProbeMeasurement.Trace().hops, 0)
    }
}

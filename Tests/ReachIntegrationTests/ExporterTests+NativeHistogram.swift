import Foundation
import XCTest

/// The native-histogram exposition end to end: Prometheus 2.42 with native histograms on
/// scrapes reach-exporter in the protobuf format it negotiates, and histogram_quantile over
/// the native series of the exporter's own reach_exporter_probe_duration_seconds answers
/// what the probes took (each probe's probe_duration_seconds, read from its answer).
extension ExporterTests {
    static let protobufAccept =
        "Accept:application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,"
        + "text/plain;version=0.0.4;q=0.5"

    func testPrometheusReadsTheProbeDurationsAsANativeHistogram() throws {
        let net = try network()
        try Privilege.requireRootAndTools(["prometheus"])
        _ = try startExporter(["--allow", "198.18.0.0/15"], in: net.client)
        var durations: [Double] = []
        for _ in 0..<30 {
            let answer = try get("http://127.0.0.1:10115/probe?module=icmp&target=198.18.0.1", in: net.client)
            XCTAssertEqual(answer.status, 200, answer.body)
            durations.append(try XCTUnwrap(samples(answer.body)["probe_duration_seconds"], answer.body))
        }
        try assertContentTypes(in: net.client)
        let config = """
            global:
              scrape_interval: 1s
              scrape_timeout: 900ms
            scrape_configs:
              - job_name: reach
                static_configs:
                  - targets: [127.0.0.1:10115]

            """ + Self.probeJob("reach_probe", module: "tcp_connect", targets: "198.18.0.1:8080")
        let prometheus = try lab.launch(
            ["prometheus", "--config.file=\(try lab.script("prometheus.yml", config))", "--storage.tsdb.path=\(lab.directory)/tsdb",
             "--web.listen-address=127.0.0.1:19090", "--enable-feature=native-histograms"],
            in: net.client, label: "prometheus")
        try prometheus.waitUntilReady(marker: "Server is ready to receive web requests", timeout: 30)

        let series = "reach_exporter_probe_duration_seconds{module=\"icmp\"}"
        var count: [String: String] = [:]
        let deadline = Date().addingTimeInterval(30)
        while count[""] != "30", Date() < deadline {
            usleep(250_000)
            count = values(try prometheusQuery("histogram_count(\(series))", in: net.client, port: 19090), by: "")
        }
        XCTAssertEqual(count[""], "30", "prometheus log:\n\(prometheus.log)")
        let sum = values(try prometheusQuery("histogram_sum(\(series))", in: net.client, port: 19090), by: "")
        XCTAssertEqual(Double(sum[""] ?? "") ?? 0, durations.reduce(0, +), accuracy: 1e-9)
        // Within the bucket factor at schema 4, 2^(1/16): the error bound of a native quantile.
        let sorted = durations.sorted()
        for q in [0.5, 0.9, 0.99] {
            let answer = values(try prometheusQuery("histogram_quantile(\(q), \(series))", in: net.client, port: 19090), by: "")
            let estimate = try XCTUnwrap(Double(answer[""] ?? ""), "q \(q): \(answer)")
            let truth = sorted[Int((q * Double(sorted.count)).rounded(.up)) - 1]
            XCTAssertLessThan(max(estimate / truth, truth / estimate), pow(2, 1.0 / 16), "q \(q): \(estimate) for \(truth) of \(sorted)")
        }
        // Ingested as a native histogram: no classic _bucket series beside it.
        XCTAssertEqual(try prometheusQuery("reach_exporter_probe_duration_seconds_bucket", in: net.client, port: 19090).count, 0)
        // The probes' answers in the protobuf too: probe_success read from them.
        var success: [String: String] = [:]
        while success.isEmpty, Date() < deadline {
            success = values(try prometheusQuery("probe_success{job=\"reach_probe\"}", in: net.client, port: 19090), by: "instance")
            if success.isEmpty { usleep(250_000) }
        }
        XCTAssertEqual(success, ["198.18.0.1:8080": "1"], "prometheus log:\n\(prometheus.log)")
    }

    /// The Content-Type of each format, on /metrics and /probe alike (tcp_connect probes: the
    /// icmp durations stay the 30 the test counts).
    private func assertContentTypes(in namespace: Namespace) throws {
        let protobuf = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"
        for (headers, type) in [([Self.protobufAccept], protobuf), ([], "text/plain; version=0.0.4; charset=utf-8")] {
            for path in ["/metrics", "/probe?module=tcp_connect&target=198.18.0.1:8080"] {
                let result = try namespace.exec(
                    ["python3", try HelperScript.path("exporter-client.py"), "get", "http://127.0.0.1:10115\(path)"] + headers)
                let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: Any]
                XCTAssertEqual(object?["status"] as? Int, 200, "\(result)")
                XCTAssertEqual(object?["content_type"] as? String, type, "\(path) \(headers)")
            }
        }
    }
}

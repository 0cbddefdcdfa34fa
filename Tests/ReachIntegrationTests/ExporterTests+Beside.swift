#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import XCTest

/// The steps the side-by-side exporter tests share.
extension ExporterTests {
    /// A CA and its server certificates (valid, expired, for another name: see
    /// Helpers/make-test-certificates.py), made in `namespace`; their directory.
    func makeTestCertificates(in namespace: Namespace) throws -> String {
        let certificates = "\(lab.directory)/certificates"
        try FileManager.default.createDirectory(atPath: certificates, withIntermediateDirectories: true)
        let made = try namespace.exec(["/usr/bin/python3", try HelperScript.path("make-test-certificates.py"), certificates])
        guard made.status == 0 else { throw HarnessError("make-test-certificates.py failed: \(made)") }
        return certificates
    }

    /// grpcio's health service (Helpers/grpc-health-server.py) on `port` in `namespace`,
    /// plaintext, or over TLS with the PEM chain and key `tls` names.
    func startGRPCHealthServer(port: Int, tls: [String] = [], in namespace: Namespace) throws {
        if access("\(Self.grpcTree)/grpc_health/v1/health.py", R_OK) != 0 {
            try ContinuousIntegration.cannotRun("the grpc tests need grpcio at \(Self.grpcTree) (scripts/install-deps.sh test)")
        }
        let command = ["env", "PYTHONPATH=\(Self.grpcTree)", "/usr/bin/python3", try HelperScript.path("grpc-health-server.py")]
        let server = try lab.launch(command + ["::", String(port)] + tls, in: namespace, label: "grpc-\(port)")
        try server.waitUntilReady(marker: "listening", timeout: 20)
    }

    /// blackbox_exporter 0.23 on 127.0.0.1:19115 and reach-exporter on 127.0.0.1:10115, in
    /// `namespace`, both reading `modules` as the file `name`; reach allows `allowed`.
    func startBesideBlackbox(_ name: String, modules: String, allowing allowed: [String], in namespace: Namespace) throws {
        try startBesideBlackbox(configFile: try lab.script(name, modules), allowing: allowed, in: namespace)
    }

    /// The same, both given the file `configFile` by blackbox_exporter's `--config.file`, and
    /// both run with `environment` ("NAME=VALUE") added to theirs.
    func startBesideBlackbox(configFile: String, allowing allowed: [String], environment: [String] = [], in namespace: Namespace) throws {
        let blackbox = try lab.launch(
            (environment.isEmpty ? [] : ["env"] + environment)
                + ["prometheus-blackbox-exporter", "--config.file=\(configFile)", "--web.listen-address=127.0.0.1:19115"],
            in: namespace, label: "blackbox")
        try waitForPort(19115, in: namespace, server: blackbox)
        _ = try startExporter(
            ["--config.file=\(configFile)"] + allowed.flatMap { ["--allow", $0] }, in: namespace, environment: environment)
    }

    /// One probe asked of both exporters started by `startBesideBlackbox`, with a 3 s scrape
    /// timeout: reach's answer is 200, and its probe_success and failure reason are as
    /// `reason` says (nil: success). Both answers' samples.
    func probeBoth(_ module: String, _ target: String, reason: String?, in namespace: Namespace) throws
        -> (mine: [String: Double], theirs: [String: Double])
    {
        let label = "\(module) \(target)"
        let query = "/probe?module=\(module)&target=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        let header = ["X-Prometheus-Scrape-Timeout-Seconds:3"]
        let theirs = samples(try get("http://127.0.0.1:19115\(query)", in: namespace, headers: header).body)
        let ours = try get("http://127.0.0.1:10115\(query)", in: namespace, headers: header)
        XCTAssertEqual(ours.status, 200, "\(label): \(ours.body)")
        let mine = samples(ours.body)
        XCTAssertEqual(mine["probe_success"], reason == nil ? 1 : 0, label)
        let reasons = mine.filter { $0.key.hasPrefix("reach_probe_failure_info") }
        XCTAssertEqual(reasons, reason.map { ["reach_probe_failure_info{reason=\"\($0)\"}": 1.0] } ?? [:], label)
        return (mine, theirs)
    }
}

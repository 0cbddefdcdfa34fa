import Foundation
import ReachCore
import ReachSystem
import XCTest

@testable import ReachExporter

/// The configuration file read again (SIGHUP, POST /-/reload): a good file's modules take
/// over; a bad one leaves the old in force and the gauge at 0, until a good one again.
final class ExporterConfigurationFileTests: XCTestCase {
    private func at(seconds: Int64) -> RealtimeInstant { RealtimeInstant(nanoseconds: seconds * 1_000_000_000) }

    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-config-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func write(_ text: String) throws -> String {
        let path = directory.appendingPathComponent("blackbox.yml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func gauges(_ file: ExporterConfigurationFile) -> (Double?, Double?) {
        (MetricSample.value(of: "reach_exporter_config_last_reload_successful", in: file.samples),
         MetricSample.value(of: "reach_exporter_config_last_reload_success_timestamp_seconds", in: file.samples))
    }

    func testAGoodFileReplacesTheModulesABadOneKeepsThem() throws {
        let path = try write("modules:\n  ping:\n    prober: icmp\n")
        let file = try ExporterConfigurationFile(path: path, allow: AllowList(), now: at(seconds: 100))
        XCTAssertEqual(file.router.modules.map(\.name), ["ping"])
        XCTAssertEqual(gauges(file).0, 1)
        XCTAssertEqual(gauges(file).1, 100)

        _ = try write("modules:\n  web:\n    prober: http\n  port:\n    prober: tcp\n")
        XCTAssertNil(file.reload(now: at(seconds: 200)))
        XCTAssertEqual(file.router.modules.map(\.name), ["web", "port"])
        XCTAssertEqual(gauges(file).0, 1)
        XCTAssertEqual(gauges(file).1, 200)

        _ = try write("modules:\n  web:\n    prober: http\n    http:\n      proxy_url: socks4://proxy.lab\n")
        let failure = try XCTUnwrap(file.reload(now: at(seconds: 300)))
        XCTAssertEqual(
            failure.description,
            "\(path): line 5: http.proxy_url: 'socks4://proxy.lab': socks4:// proxies are not supported (http, https and socks5 are)")
        XCTAssertEqual(file.router.modules.map(\.name), ["web", "port"], "the old modules stay")
        XCTAssertEqual(gauges(file).0, 0)
        XCTAssertEqual(gauges(file).1, 200, "the time of the last success")

        try FileManager.default.removeItem(atPath: path)
        XCTAssertEqual(file.reload(now: at(seconds: 400))?.description, "\(path): No such file or directory")
        XCTAssertEqual(file.router.modules.map(\.name), ["web", "port"])

        _ = try write("modules:\n  ping:\n    prober: icmp\n")
        XCTAssertNil(file.reload(now: at(seconds: 500)))
        XCTAssertEqual(file.router.modules.map(\.name), ["ping"])
        XCTAssertEqual(gauges(file).0, 1)
    }

    func testWithoutAFileTheBuiltInModulesStay() throws {
        let file = try ExporterConfigurationFile(path: nil, allow: AllowList(), now: at(seconds: 1))
        XCTAssertNil(file.reload(now: at(seconds: 2)))
        XCTAssertEqual(file.router.modules, ExporterModule.defaults)
    }

    func testABadFileAtStartIsAnError() throws {
        let path = try write("modules: []\n")
        XCTAssertThrowsError(try ExporterConfigurationFile(path: path, allow: AllowList(), now: at(seconds: 1))) { error in
            XCTAssertEqual("\(error)", "\(path): line 1: 'modules' must be a mapping of names to modules")
        }
    }

    /// The file packaged as /etc/reach-exporter/blackbox.yml parses, and names the built-in modules.
    func testThePackagedConfigurationParses() throws {
        let packaged = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("contrib/reach-exporter/blackbox.yml").path
        let file = try ExporterConfigurationFile(path: packaged, allow: AllowList(), now: at(seconds: 1))
        XCTAssertEqual(Set(file.router.modules.map(\.name)), Set(ExporterModule.defaults.map(\.name)))
    }
}

import ReachExporterSystem
import XCTest

@testable import ReachExporter

/// A prober's key table: reading, the refusal of what reach does not run, the debug block.
final class ProberKeyTests: XCTestCase {
    private struct Sample: BlackboxSettings, Equatable {
        var on = false
        var later = ""
    }

    private let keys: [ProberKey<Sample>] = [
        .flag("on", \.on),
        ProberKey("later", runs: false, read: { settings, node, key, _ throws(ConfigurationError) in settings.later = try node.text(key) }),
    ]

    private func read(_ yaml: String, prober: String = "sample", checksImplemented: Bool = true) throws -> Sample {
        let node = try XCTUnwrap(YAMLNode.parse(Array(yaml.utf8)))
        var settings = Sample()
        try ConfigurationReader(prober: prober, checksImplemented: checksImplemented).read(node, at: "sample", into: &settings, keys)
        return settings
    }

    private func message(_ yaml: String) -> String? {
        do {
            _ = try read(yaml)
            return nil
        } catch {
            return (error as? ConfigurationError)?.message ?? "\(error)"
        }
    }

    func testAKeyReachDoesNotRunIsRefusedInItsOwnProberOnly() throws {
        XCTAssertEqual(message("on: true\nlater: soon\n"), "line 2: sample.later: not yet supported by reach-exporter")
        XCTAssertEqual(try read("on: true\nlater:\n"), Sample(on: true, later: ""), "empty: the default, which reach runs")
        XCTAssertEqual(try read("later: soon\n", prober: "other"), Sample(on: false, later: "soon"))
        XCTAssertEqual(try read("later: soon\n", checksImplemented: false), Sample(on: false, later: "soon"))
    }

    func testAKeyOutsideTheTableIsUnknownAndAValueOfTheWrongTypeNamed() {
        XCTAssertEqual(message("off: true\n"), "line 1: sample.off: unknown key (blackbox_exporter 0.23 has no such setting)")
        XCTAssertEqual(message("on: maybe\n"), "line 1: sample.on: expected true or false, not 'maybe'")
    }

    func testTheDebugBlockPrintsInTheTablesOrderAndLeavesOutWhatIsEmpty() {
        XCTAssertEqual(DebugValue.block("sample", Sample(on: true, later: "x"), keys), "sample:\n    on: true\n")
        XCTAssertEqual(DebugValue.block("sample", Sample(), keys), "")
    }

    func testEachProberNamesEachKeyOnce() {
        let tables = [
            HTTPProberSettings.keys.map(\.name), TCPProberSettings.keys.map(\.name), ICMPProberSettings.keys.map(\.name),
            DNSProberSettings.keys.map(\.name), GRPCProberSettings.keys.map(\.name),
        ]
        for names in tables { XCTAssertEqual(Set(names).count, names.count, "\(names)") }
    }
}

import ReachSystem
import TestSupport
import XCTest

@testable import ReachExporter

/// Which modules of the files Debian ships (prometheus-blackbox-exporter 0.23) reach-exporter
/// serves as they are, each module read alone with what reach does not run yet refused; the
/// others name the first key that stops them.
extension ExporterConfigurationTests {
    /// Each module of `path` on its own ("modules:" and the module's lines, which the files
    /// indent by two spaces under "modules:"), and what loading it alone says: nil when it loads.
    private func loadEachModule(_ path: String) throws -> [String: String?] {
        guard case .success(let bytes) = FileContents.read(path, limit: 1 << 20) else {
            try ContinuousIntegration.cannotRun("\(path) is missing: apt-get install prometheus-blackbox-exporter")
        }
        var modules: [(name: String, lines: [Substring])] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  "), !line.hasPrefix("   "), line.hasSuffix(":") {
                modules.append((String(line.dropFirst(2).dropLast()), [line]))
            } else if !modules.isEmpty, line.hasPrefix("   ") || line.allSatisfy({ $0 == " " }) {
                modules[modules.count - 1].lines.append(line)
            }
        }
        var outcome: [String: String?] = [:]
        for module in modules {
            outcome[module.name] = error("modules:\n" + module.lines.joined(separator: "\n") + "\n")
        }
        return outcome
    }

    func testWhatRunsOfTheFilesDebianShips() throws {
        let shipped = try loadEachModule("/etc/prometheus/blackbox.yml")
        XCTAssertEqual(shipped.count, 10)
        for name in [
            "http_2xx", "http_post_2xx", "tcp_connect", "pop3s_banner", "grpc", "grpc_plain", "ssh_banner", "irc_banner", "icmp",
            "icmp_ttl5",
        ] {
            XCTAssertEqual(shipped[name], .some(nil), name)
        }

        let example = try loadEachModule("/usr/share/doc/prometheus-blackbox-exporter/examples/example.yml")
        XCTAssertEqual(example.count, 16)
        let running = [
            "tcp_connect_example", "irc_banner_example", "icmp_example", "dns_udp_example", "dns_soa", "dns_tcp_example",
            "http_custom_ca_example", "http_gzip", "tls_connect", "smtp_starttls", "imap_starttls",
        ]
        for name in running {
            XCTAssertEqual(example[name], .some(nil), name)
        }
    }
}

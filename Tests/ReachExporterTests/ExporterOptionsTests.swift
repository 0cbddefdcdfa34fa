import XCTest

import ReachCommandLine
@testable import ReachExporter

final class ExporterOptionsTests: XCTestCase {
    private func message(_ arguments: [String]) -> String? {
        do {
            _ = try ExporterOptions.parse(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    func testDefaultsAreSafe() throws {
        let options = try ExporterOptions.parse([])
        XCTAssertEqual(options.listenHost, "127.0.0.1")
        XCTAssertEqual(options.listenPort, 10115)
        XCTAssertTrue(options.allow.entries.isEmpty)
        XCTAssertFalse((9100...9999).contains(Int(ExporterOptions.defaultPort)))
    }

    func testOptions() throws {
        let options = try ExporterOptions.parse([
            "--listen", "[::1]:9999", "--allow=198.51.100.0/24", "--allow", "*.lab", "--config", "b.yml", "--probe", "icmp:198.51.100.1",
            "--probe-interval", "10s", "--concurrency", "4", "--queue=8", "--header-timeout", "2s", "--max-connections", "100",
        ])
        XCTAssertEqual(options.listenHost, "::1")
        XCTAssertEqual(options.listenPort, 9999)
        XCTAssertEqual(options.allow.entries.count, 2)
        XCTAssertEqual(options.configPath, "b.yml")
        XCTAssertEqual(options.probes.count, 1)
        XCTAssertEqual(options.probeInterval.milliseconds, 10_000)
        XCTAssertEqual(options.concurrency, 4)
        XCTAssertEqual(options.queueLength, 8)
        XCTAssertEqual(options.headerTimeout.milliseconds, 2_000)
        XCTAssertEqual(options.maximumConnections, 100)
        XCTAssertNil(options.text)
        XCTAssertEqual(try ExporterOptions.parse(["--version"]).text?.hasPrefix("reach-exporter "), true)
        XCTAssertEqual(try ExporterOptions.parse(["--listen", "[::1]:1", "-h"]).text?.hasPrefix("OVERVIEW: "), true)
        // The exporter's help lists every option its declaration holds.
        let help = ExporterOptions.usage
        for option in ExporterOptions.commandLine.options {
            XCTAssertTrue(help.contains("--" + (option.name.long ?? "")), "\(option.name.spelled) missing from:\n\(help)")
        }
    }

    func testErrorsAreOneLine() {
        XCTAssertEqual(message(["--listen"]), "--listen needs a value (--listen <address:port>)")
        XCTAssertEqual(message(["--listen", "localhost:80"]),
                       "--listen: 'localhost:80' is not ADDRESS:PORT (127.0.0.1:10115, [::1]:10115)")
        XCTAssertEqual(message(["--allow", "bad name"]), "--allow: 'bad name' is neither a CIDR, a host name, *.suffix nor *")
        XCTAssertEqual(message(["--concurrency", "0"]), "--concurrency: '0' is not a number from 1 to 1024")
        XCTAssertEqual(message(["--header-timeout", "-1s"]), "--header-timeout: '-1s' is not a positive duration (5, 1.5s, 300ms)")
        XCTAssertEqual(message(["--bogus"]), "unknown option '--bogus' (see 'reach-exporter --help')")
        XCTAssertEqual(message(["--alow", "*"]), "unknown option '--alow'; did you mean '--allow'?")
        XCTAssertEqual(message(["extra"]), "unexpected argument 'extra'")
        XCTAssertEqual(message(["--probe", "ftp:x"]), "--probe: probe 'ftp:x' is not icmp:HOST, tcp:HOST:PORT or http://HOST[:PORT]/PATH")
        for arguments in [["--listen", "\n"], ["--allow", "a\nb"], ["x\ny"]] {
            XCTAssertFalse(message(arguments)?.contains("\n") ?? true, "\(arguments)")
        }
    }
}

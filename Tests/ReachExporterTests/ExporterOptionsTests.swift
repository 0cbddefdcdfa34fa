import XCTest

import ReachCommandLine
import ReachSystem
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

    /// blackbox_exporter 0.23's flags, as Debian's /etc/default/prometheus-blackbox-exporter
    /// and its --help write them.
    func testBlackboxFlags() throws {
        let options = try ExporterOptions.parse([
            "--config.file", "/etc/prometheus/blackbox.yml", "--web.listen-address=:9115", "--web.config.file", "web.yml",
            "--timeout-offset", "0.25", "--config.check", "--log.level=debug", "--log.format", "json", "--history.limit", "10",
        ])
        XCTAssertEqual(options.configPath, "/etc/prometheus/blackbox.yml")
        XCTAssertEqual(options.listenHost, "::")
        XCTAssertEqual(options.listenPort, 9115)
        XCTAssertEqual(options.webConfigPath, "web.yml")
        XCTAssertEqual(options.timeoutOffset.milliseconds, 250)
        XCTAssertTrue(options.checkConfigurationOnly)
        XCTAssertEqual(options.log, ExporterLog(level: .debug, format: .json))
        XCTAssertEqual(options.historyLimit, 10)
        let defaults = try ExporterOptions.parse(["--web.listen-address", "127.0.0.1:9115"])
        XCTAssertEqual(defaults.listenHost, "127.0.0.1")
        XCTAssertFalse(defaults.checkConfigurationOnly)
        XCTAssertEqual(defaults.timeoutOffset.milliseconds, 500)
        XCTAssertEqual(defaults.log, ExporterLog(level: .info, format: .plain))
        XCTAssertEqual(message(["--log.level", "trace"]), "--log.level: 'trace' is not one of debug, info, warn, error")
        XCTAssertEqual(message(["--log.format", "plain"]), "--log.format: 'plain' is not one of logfmt, json")
        XCTAssertEqual(message(["--timeout-offset", "-1"]), "--timeout-offset: '-1' is not a number of seconds from 0 to 3600")
        XCTAssertEqual(message(["--config.check=yes"]), "--config.check takes no value, and 'yes' was given")
        XCTAssertEqual(defaults.routes, RoutePrefix())
    }

    /// exporter-toolkit's --web.listen-address is repeatable; blackbox's --web.external-url
    /// and --web.route-prefix as its main.go reads them.
    func testListenAddressesAndRoutePrefix() throws {
        let options = try ExporterOptions.parse([
            "--web.listen-address", "127.0.0.1:9115", "--web.listen-address=[::1]:9116", "--web.external-url", "https://lab.example/bb/",
        ])
        XCTAssertEqual(options.listenAddresses, [.init(host: "127.0.0.1", port: 9115), .init(host: "::1", port: 9116)])
        XCTAssertEqual(options.routes.prefix, "/bb/")
        XCTAssertEqual(options.routes.externalURL, "https://lab.example/bb")
        XCTAssertEqual(message(["--web.external-url", "'http://x/'"]), "--web.external-url: URL must not begin or end with quotes")
        XCTAssertEqual(message(["--web.systemd-socket"]),
                       "--web.systemd-socket needs --web.external-url: the URL cannot be inferred from a passed socket")
        XCTAssertTrue(try ExporterOptions.parse(["--web.systemd-socket", "--web.external-url", "http://lab.example/"]).systemdSocket)
    }

    func testRoutePrefix() throws {
        func routes(_ url: String?, _ prefix: String?) throws -> RoutePrefix {
            try RoutePrefix(externalURL: url, routePrefix: prefix, port: 9115) { "lab-host" }
        }
        XCTAssertEqual(try routes(nil, nil), RoutePrefix())
        XCTAssertEqual(try routes("http://lab.example:9115", nil).prefix, "/")
        XCTAssertEqual(try routes("http://lab.example/a/b//", nil).prefix, "/a/b/")
        XCTAssertEqual(try routes("http://lab.example/a/", "//x//").prefix, "/x/", "the prefix given wins")
        XCTAssertEqual(try routes("bb", nil), try routes("/bb", nil), "a relative URL is a path")
        let inferred = try routes(nil, "bb")
        XCTAssertEqual(inferred.externalURL, "http://lab-host:9115")
        XCTAssertEqual(inferred.resolve("/bb/probe?target=x"), .route("/probe?target=x"))
        XCTAssertEqual(inferred.resolve("/bb/"), .route("/"))
        XCTAssertEqual(inferred.resolve("/"), .redirect(status: 302, location: "http://lab-host:9115"))
        XCTAssertEqual(inferred.resolve("/bb?x=1"), .redirect(status: 301, location: "/bb/?x=1"))
        XCTAssertEqual(inferred.resolve("/metrics"), .notFound)
        XCTAssertEqual(inferred.resolve("/bbx/metrics"), .notFound)
        XCTAssertEqual(RoutePrefix().resolve("/metrics?x"), .route("/metrics?x"))
    }

    func testLogLines() {
        let time = RealtimeInstant(nanoseconds: 1_700_000_000_123_000_000)
        XCTAssertEqual(ExporterLog().line(.info, "listening on [::1]:10115", at: time), "reach-exporter: listening on [::1]:10115\n")
        XCTAssertNil(ExporterLog().line(.debug, "x", at: time))
        XCTAssertNil(ExporterLog(level: .error).line(.warn, "x", at: time))
        XCTAssertEqual(ExporterLog(level: .warn, format: .logfmt).line(.error, "a \"b\"\n", at: time),
                       "ts=2023-11-14T22:13:20.123Z level=error msg=\"a \\\"b\\\"\\n\"\n")
        XCTAssertEqual(ExporterLog(format: .json).line(.info, "ok", at: time),
                       "{\"ts\":\"2023-11-14T22:13:20.123Z\",\"level\":\"info\",\"msg\":\"ok\"}\n")
    }
}

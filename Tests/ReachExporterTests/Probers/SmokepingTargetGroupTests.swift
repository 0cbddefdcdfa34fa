import XCTest

import ReachCommandLine
import ReachCore
import ReachSystem
@testable import ReachExporter

/// smokeping_prober's `targets:` as reach reads them: its defaults, its checks, refusals
/// naming their line.
final class SmokepingTargetGroupTests: XCTestCase {
    private func targets(_ text: String) throws -> [SmokepingTargetGroup] {
        try ExporterConfiguration.parseFile(text).targets
    }

    private func message(_ text: String) -> String? {
        do {
            _ = try ExporterConfiguration.parseFile(text)
            return nil
        } catch {
            return error.message
        }
    }

    func testDefaultsAreSmokepingProbers() throws {
        let groups = try targets("targets:\n- hosts:\n  - 198.51.100.1\n  - far.lab\n")
        XCTAssertEqual(groups.count, 1)
        XCTAssertEqual(groups[0].hosts, ["198.51.100.1", "far.lab"])
        XCTAssertEqual(groups[0].interval, .seconds(1))
        XCTAssertEqual(groups[0].network, "ip")
        XCTAssertEqual(groups[0].transport, "icmp")
        XCTAssertEqual(groups[0].size, 56)
        XCTAssertNil(groups[0].source)
        XCTAssertEqual(groups[0].labels, [])
    }

    /// Debian's /etc/prometheus/smokeping_prober.yml (prometheus-smokeping-prober 0.6.1), as shipped.
    func testDebiansFileLoads() throws {
        let groups = try targets(
            """
            ---
            targets:
            - hosts:
              - localhost
              interval: 1s # Duration, Default 1s.
              network: ip # One of ip, ip4, ip6. Default: ip (automatic IPv4/IPv6)
              protocol: icmp # One of icmp, udp. Default: icmp (Requires privileged operation)
              size: 56 # Packet data size in bytes. Default 56 (Range: 24 - 65535)

            """)
        var expected = SmokepingTargetGroup()
        expected.hosts = ["localhost"]
        XCTAssertEqual(groups, [expected])
    }

    func testEveryKey() throws {
        let groups = try targets(
            """
            targets:
            - hosts: [198.51.100.1]
              host: 198.51.100.2
              interval: 250ms
              network: ip6
              protocol: udp
              size: 24
              source: 2001:db8::2
              tos: 0
              labels: {site: lab, dc: one}
            - hosts: [2001:db8::1]
            """)
        XCTAssertEqual(groups.count, 2)
        XCTAssertEqual(groups[0].hosts, ["198.51.100.1", "198.51.100.2"])
        XCTAssertEqual(groups[0].interval, .milliseconds(250))
        XCTAssertEqual(groups[0].network, "ip6")
        XCTAssertEqual(groups[0].transport, "udp")
        XCTAssertEqual(groups[0].size, 24)
        XCTAssertEqual(groups[0].source, try IPAddress.parse("2001:db8::2"))
        XCTAssertEqual(groups[0].labels.map(\.name), ["dc", "site"])
        XCTAssertEqual(groups[1].interval, .seconds(1))
    }

    func testModulesAndTargetsInOneFile() throws {
        let file = try ExporterConfiguration.parseFile("modules:\n  ping:\n    prober: icmp\ntargets:\n- hosts: [198.51.100.1]\n")
        XCTAssertEqual(file.modules.map(\.name), ["ping"])
        XCTAssertEqual(file.targets.map(\.hosts), [["198.51.100.1"]])
    }

    func testBadInputIsOneLineWithItsLine() {
        let cases: [(String, String)] = [
            ("targets:\n- hosts: [a]\n  colour: blue\n", "line 3: targets.colour: unknown key (smokeping_prober has no such setting)"),
            ("targets:\n- hosts: [a]\n  interval: 5ms\n", "line 3: targets.interval: 5ms is shorter than 10ms, the shortest reach keeps"),
            ("targets:\n- hosts: [a]\n  interval: soon\n", "line 3: targets.interval: not a duration: 'soon' (1s, 250ms)"),
            ("targets:\n- hosts: [a]\n  size: 23\n", "line 3: targets.size: 23 is not within 24-65535"),
            ("targets:\n- hosts: [a]\n  size: 65536\n", "line 3: targets.size: 65536 is not within 24-65535"),
            ("targets:\n- hosts: [a]\n  network: ip5\n", "line 3: targets.network: 'ip5' is not one of ip, ip4, ip6"),
            ("targets:\n- hosts: [a]\n  protocol: sctp\n", "line 3: targets.protocol: 'sctp' is not one of icmp, udp, tcp"),
            ("targets:\n- hosts: [a]\n  protocol: tcp\n", "line 2: targets.port: a port goes with protocol tcp, and tcp needs one"),
            ("targets:\n- hosts: [a]\n  port: 80\n", "line 2: targets.port: a port goes with protocol tcp, and tcp needs one"),
            ("targets:\n- hosts: [a]\n  protocol: tcp\n  port: 0\n", "line 4: targets.port: 0 is not within 1-65535"),
            ("targets:\n- hosts: [a]\n  tos: 16\n", "line 3: targets.tos: not yet supported by reach-exporter (only 0)"),
            ("targets:\n- hosts: [a]\n  source: here\n", "line 3: targets.source: 'here' is not an IP address"),
            ("targets:\n- hosts: [a]\n  labels: {ip: x}\n", "line 3: targets.labels.ip: not a label name a series may take"),
            ("targets:\n- hosts: [a]\n  labels: {9lives: x}\n", "line 3: targets.labels.9lives: not a label name a series may take"),
            ("targets: 5\n", "line 1: targets: expected a list"),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(message(text), expected, text)
        }
    }

    func testMoreHostsThanOneSequenceSpaceIsOneLine() {
        let hosts = (0..<100_000).map { "198.18.\($0 / 256 % 256).\($0 % 256)" }
        let text = "targets:\n- hosts:\n" + hosts.map { "  - \($0)\n" }.joined()
        let said = message(text)
        XCTAssertNotNil(said)
        XCTAssertFalse(said?.contains("\n") ?? true)
    }

    func testSmokepingCommandLine() throws {
        let options = try ExporterOptions.parse(
            ["--smokeping", "-i", "250ms", "-s", "100", "--buckets", "0.001,0.01,0.1", "--web.telemetry-path", "/smoke", "--privileged",
             "198.51.100.1", "far.lab"])
        XCTAssertEqual(options.listenAddresses, [ExporterOptions.ListenAddress(host: "::", port: 9374)])
        XCTAssertEqual(options.configPath, SmokepingOptions.defaultConfigPath)
        XCTAssertTrue(options.smokeping.configMayBeMissing)
        XCTAssertEqual(options.smokeping.layout.upperBounds, [0.001, 0.01, 0.1])
        XCTAssertEqual(options.smokeping.layout.schema, LatencyHistogram.Layout.smokeping.schema)
        XCTAssertEqual(options.smokeping.telemetryPath, "/smoke")
        let group = try XCTUnwrap(options.smokeping.commandLineGroup)
        XCTAssertEqual(group.hosts, ["198.51.100.1", "far.lab"])
        XCTAssertEqual(group.interval, .milliseconds(250))
        XCTAssertEqual(group.size, 100)
    }

    func testTheProgramNameMeansSmokeping() throws {
        let options = try ExporterOptions.parse(
            ["--web.listen-address=:9999", "--config.file=/tmp/s.yml", "198.51.100.1"], program: "/usr/bin/prometheus-smokeping-prober")
        XCTAssertTrue(options.smokeping.mode)
        XCTAssertEqual(options.listenAddresses, [ExporterOptions.ListenAddress(host: "::", port: 9999)])
        XCTAssertEqual(options.configPath, "/tmp/s.yml")
        XCTAssertFalse(options.smokeping.configMayBeMissing)
        // blackbox_exporter's command line takes no hosts.
        XCTAssertThrowsError(try ExporterOptions.parse(["198.51.100.1"]))
    }

    func testBadSmokepingFlagsAreOneLine() {
        func message(_ arguments: [String]) -> String? {
            do {
                _ = try ExporterOptions.parse(arguments)
                return nil
            } catch {
                return error.message
            }
        }
        XCTAssertEqual(message(["-i", "1ms"]), "--ping.interval: '1ms' is not a duration of at least 10ms (1s, 250ms)")
        XCTAssertEqual(message(["-s", "20"]), "--ping.size: '20' is not a number from 24 to 65535")
        XCTAssertEqual(message(["--buckets", "0.1,0.01"]), "--buckets: '0.1,0.01': bucket bounds must increase: 0.01 after 0.1")
        XCTAssertEqual(message(["--buckets", "x"]), "--buckets: 'x': \"x\" is not a number of seconds")
    }

    /// --web.telemetry-path serves the metrics there too; /metrics stays.
    func testTelemetryPath() {
        var router = ExporterRouter(modules: ExporterModule.defaults, allow: AllowList())
        router.telemetryPath = "/smoke"
        XCTAssertEqual(router.route(method: "GET", uri: "/smoke", scrapeTimeout: nil), .metrics)
        XCTAssertEqual(router.route(method: "GET", uri: "/metrics", scrapeTimeout: nil), .metrics)
        let refused = ExporterRouter.Route.reply(status: 405, text: "Method POST not allowed")
        XCTAssertEqual(router.route(method: "POST", uri: "/smoke", scrapeTimeout: nil), refused)
    }
}

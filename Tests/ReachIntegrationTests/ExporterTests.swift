#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// reach-exporter run for real inside a namespace: scraped by Prometheus (Debian's
/// `prometheus`, a plain process with a generated configuration), compared with Debian's
/// blackbox_exporter on the same targets, and fed hostile clients.
///
/// ```
///  client  v0 198.18.0.2/24 2001:db8::2/64 ──── f0 198.18.0.1 2001:db8::1  far
///          default routes via far; an unreachable route 203.0.113.0/24; blackhole routes
///          198.51.100.0/24 and 2001:db8:b::/48; prohibit routes 203.0.113.128/25 and
///          2001:db8:d::/48; an unreachable route 2001:db8:c::/48
///          /etc/netns/<client>/hosts: far.lab is 198.18.0.1 and 2001:db8::1
///          far: an HTTP server on port 8080 (IPv4 and IPv6); nothing on 8081
/// ```
final class ExporterTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-exp-" }

    static let exporterPath: String = {
        if let override = ProcessInfo.processInfo.environment["REACH_EXPORTER_BINARY"], !override.isEmpty { return override }
        return URL(fileURLWithPath: ReachBinary.path).deletingLastPathComponent().appendingPathComponent("reach-exporter").path
    }()

    struct Network {
        let client: Namespace
        let far: Namespace
    }

    func network() throws -> Network {
        try Privilege.requireRootAndTools(["ip", "python3"])
        let client = try lab.namespace("client")
        let far = try lab.namespace("far")
        try lab.veth("v0", in: client, peer: "f0", in: far)
        try client.ip("addr", "add", "198.18.0.2/24", "dev", "v0")
        try client.ip("-6", "addr", "add", "2001:db8::2/64", "dev", "v0", "nodad")
        try far.ip("addr", "add", "198.18.0.1/24", "dev", "f0")
        try far.ip("-6", "addr", "add", "2001:db8::1/64", "dev", "f0", "nodad")
        try client.waitFor(link: "v0", operstate: "UP")
        try far.waitFor(link: "f0", operstate: "UP")
        try client.ip("route", "add", "default", "via", "198.18.0.1")
        try client.ip("-6", "route", "add", "default", "via", "2001:db8::1")
        try client.ip("route", "add", "unreachable", "203.0.113.0/24")
        try client.ip("route", "add", "blackhole", "198.51.100.0/24")
        try client.ip("-6", "route", "add", "blackhole", "2001:db8:b::/48")
        try client.ip("route", "add", "prohibit", "203.0.113.128/25")
        try client.ip("-6", "route", "add", "prohibit", "2001:db8:d::/48")
        try client.ip("-6", "route", "add", "unreachable", "2001:db8:c::/48")
        let etc = "/etc/netns/\(client.name)"
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: true)
        let hosts = "127.0.0.1 localhost\n198.18.0.1 far.lab\n2001:db8::1 far.lab\n"
        try hosts.write(toFile: "\(etc)/hosts", atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: etc) }
        // A directory: http.server answers /sub with a redirect to /sub/.
        try FileManager.default.createDirectory(atPath: "\(lab.directory)/sub", withIntermediateDirectories: true)
        let server = try lab.launch(["python3", "-m", "http.server", "--bind", "::", "--directory", lab.directory, "8080"],
                                    in: far, label: "http-server")
        try waitForPort(8080, in: far, server: server)
        try client.waitForPingReplies(from: ["198.18.0.1", "2001:db8::1"], what: "far")
        return Network(client: client, far: far)
    }

    func waitForPort(_ port: Int, in namespace: Namespace, server: BackgroundProcess) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let listening = try namespace.exec(["ss", "-Hltn", "sport = :\(port)"])
            if !listening.stdout.isEmpty { return }
            if Subprocess.hasExited(server.pid) { throw HarnessError("\(server.label) exited: \(server.log)") }
            usleep(50_000)
        }
        throw HarnessError("nothing listens on port \(port) in \(namespace) after 10 s")
    }

    /// reach-exporter on 127.0.0.1:`port` in `namespace`, with `environment` ("NAME=VALUE")
    /// added to its own.
    func startExporter(_ arguments: [String], in namespace: Namespace, port: Int = 10115, environment: [String] = []) throws
        -> BackgroundProcess
    {
        guard access(Self.exporterPath, X_OK) == 0 else {
            throw HarnessError("no reach-exporter at \(Self.exporterPath): swift build first")
        }
        let process = try lab.launch(
            (environment.isEmpty ? [] : ["env"] + environment) + [Self.exporterPath, "--listen", "127.0.0.1:\(port)"] + arguments,
            in: namespace, label: "reach-exporter")
        try process.waitUntilReady(marker: "listening on", timeout: 10)
        return process
    }

    func get(_ url: String, in namespace: Namespace, headers: [String] = [], method: String = "get") throws
        -> (status: Int, body: String)
    {
        let result = try namespace.exec(["python3", try HelperScript.path("exporter-client.py"), method, url] + headers)
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: Any],
              let status = object["status"] as? Int, let body = object["body"] as? String
        else { throw HarnessError("exporter-client get failed: \(result)") }
        return (status, body)
    }

    /// The samples of an exposition: "name{labels}" to value.
    func samples(_ text: String) -> [String: Double] {
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            values[String(line[..<space])] = value
        }
        return values
    }

    // MARK: Prometheus

    /// A scrape job of `module` probes of `targets` through the exporter on 127.0.0.1:10115,
    /// relabelled as blackbox_exporter's documentation shows.
    static func probeJob(_ name: String, module: String, targets: String) -> String {
        """
          - job_name: \(name)
            metrics_path: /probe
            params: {module: [\(module)]}
            static_configs:
              - targets: [\(targets)]
            relabel_configs:
              - source_labels: [__address__]
                target_label: __param_target
              - source_labels: [__param_target]
                target_label: instance
              - target_label: __address__
                replacement: 127.0.0.1:10115

        """
    }

    func prometheusQuery(_ query: String, in namespace: Namespace, port: Int) throws -> [[String: Any]] {
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
        let answer = try get("http://127.0.0.1:\(port)/api/v1/query?query=\(encoded)", in: namespace)
        guard answer.status == 200, let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
              let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]]
        else { throw HarnessError("prometheus query \(query): \(answer)") }
        return result
    }

    /// The instant vector's values by the label `key`.
    func values(_ result: [[String: Any]], by key: String) -> [String: String] {
        var values: [String: String] = [:]
        for series in result {
            guard let metric = series["metric"] as? [String: String], let value = series["value"] as? [Any],
                  value.count == 2, let text = value[1] as? String else { continue }
            values[metric[key] ?? ""] = text
        }
        return values
    }

    func testPrometheusScrapesProbesAndSeesTheLinkGoDown() throws {
        let net = try network()
        try Privilege.requireRootAndTools(["prometheus"])
        let exporter = try startExporter(
            ["--allow", "198.18.0.0/15", "--allow", "203.0.113.0/24", "--probe", "icmp:198.18.0.1"], in: net.client)
        let config = """
            global:
              scrape_interval: 1s
              scrape_timeout: 900ms
            scrape_configs:
              - job_name: reach
                static_configs:
                  - targets: [127.0.0.1:10115]

            """ + Self.probeJob("reach_probe", module: "icmp", targets: "198.18.0.1, 203.0.113.1")
        let configPath = try lab.script("prometheus.yml", config)
        let storage = "\(lab.directory)/tsdb"
        let prometheus = try lab.launch(
            ["prometheus", "--config.file=\(configPath)", "--storage.tsdb.path=\(storage)", "--web.listen-address=127.0.0.1:19090"],
            in: net.client, label: "prometheus")
        try prometheus.waitUntilReady(marker: "Server is ready to receive web requests", timeout: 30)

        // Both probes scraped: 1 for the reachable target, 0 for the one behind an unreachable route.
        var success: [String: String] = [:]
        var reachable: [String: String] = [:]
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            success = values(try prometheusQuery("probe_success", in: net.client, port: 19090), by: "instance")
            reachable = values(try prometheusQuery("reach_internet_reachable", in: net.client, port: 19090), by: "family")
            if success.count == 2, reachable.count == 2 { break }
            usleep(200_000)
        }
        XCTAssertEqual(success, ["198.18.0.1": "1", "203.0.113.1": "0"], "prometheus log:\n\(prometheus.log)")
        XCTAssertEqual(reachable, ["ipv4": "1", "ipv6": "1"])
        // --probe: the connectivity state, as `reach watch --probe` decides it.
        let metrics = samples(try get("http://127.0.0.1:10115/metrics", in: net.client).body)
        XCTAssertEqual(metrics["reach_connectivity_state{state=\"full\"}"], 1)
        XCTAssertEqual(metrics["reach_connectivity_state{state=\"none\"}"], 0)

        // The link goes down: the first scrape after it says 0, within two scrape intervals.
        let down = Date().timeIntervalSince1970
        try net.client.ip("link", "set", "v0", "down")
        var firstZero: Double?
        let waitUntil = Date().addingTimeInterval(10)
        while firstZero == nil, Date() < waitUntil {
            usleep(250_000)
            let range = try prometheusQuery("reach_internet_reachable{family=\"ipv4\"}[15s]", in: net.client, port: 19090)
            let points = (range.first?["values"] as? [[Any]]) ?? []
            firstZero = points.first { ($0[0] as? Double ?? 0) >= down - 0.001 && ($0[1] as? String) == "0" }?[0] as? Double
        }
        let seen = try XCTUnwrap(firstZero, "reach_internet_reachable never 0 after the link went down")
        XCTAssertLessThanOrEqual(seen - down, 2.0, "seen \(seen - down) s after the link went down")
        let reason = values(try prometheusQuery("reach_internet_info{family=\"ipv4\"}", in: net.client, port: 19090), by: "reason")
        // Set down by hand, the link loses its routes: the default route is gone.
        XCTAssertEqual(Array(reason.keys), ["no_route"])
        let transitions = values(try prometheusQuery("reach_transitions_total", in: net.client, port: 19090), by: "family")
        XCTAssertEqual(transitions["ipv4"], "1")
        XCTAssertFalse(Subprocess.hasExited(exporter.pid))
    }

    // MARK: blackbox_exporter, side by side

    /// A probe both exporters answer: the module, the target, and reach's expected verdict.
    private typealias VerdictCase = (module: String, target: String, success: Double, protocol: Double)

    private static let verdictCases: [VerdictCase] = [
        ("icmp", "198.18.0.1", 1, 4), ("icmp", "2001:db8::1", 1, 6), ("icmp", "far.lab", 1, 6),
        ("icmp", "198.18.0.99", 0, 4),
        ("tcp_connect", "198.18.0.1:8080", 1, 4), ("tcp_connect", "[2001:db8::1]:8080", 1, 6),
        ("tcp_connect", "198.18.0.1:8081", 0, 4), ("tcp_connect", "far.lab:8080", 1, 6),
        ("http_2xx", "http://198.18.0.1:8080/", 1, 4), ("http_2xx", "http://198.18.0.1:8080/missing", 0, 4),
        ("http_2xx", "http://[2001:db8::1]:8080/", 1, 6), ("http_2xx", "http://far.lab:8080/", 1, 6),
        ("http_2xx", "http://198.18.0.1:8081/", 0, 4), ("http_2xx", "http://198.18.0.1:8080/sub", 1, 4),
        ("http_no_redirect", "http://198.18.0.1:8080/sub", 0, 4), ("tcp_connect", "nosuch.lab:8080", 0, 0),
    ]

    /// Why reach says each failed case above failed (reach_probe_failure_info's reason).
    private static let failureReasons: [String: String] = [
        "icmp 198.18.0.99": "timed_out", "tcp_connect 198.18.0.1:8081": "connection_refused",
        "http_2xx http://198.18.0.1:8080/missing": "status_code", "http_2xx http://198.18.0.1:8081/": "connection_refused",
        "http_no_redirect http://198.18.0.1:8080/sub": "status_code", "tcp_connect nosuch.lab:8080": "name_not_resolved",
    ]

    /// A blackhole, unreachable or prohibit route refuses the send or the connect: a failed
    /// probe, not a failed scrape, and reach names the route type. The cases, and the reason
    /// reach must name for each ("module target").
    private static func refusalCases() -> (cases: [VerdictCase], reasons: [String: String]) {
        let refusals: [(address4: String, address6: String, reason: String)] = [
            ("198.51.100.1", "2001:db8:b::1", "blackhole_route"), ("203.0.113.1", "2001:db8:c::1", "unreachable_route"),
            ("203.0.113.129", "2001:db8:d::1", "prohibited_route"),
        ]
        var reasons: [String: String] = [:]
        var cases: [VerdictCase] = []
        for (address4, address6, reason) in refusals {
            for (target, ipProtocol) in [(address4, 4.0), (address6, 6.0)] {
                let host = ipProtocol == 4 ? target : "[\(target)]"
                for (module, probeTarget) in [("icmp", target), ("tcp_connect", "\(host):80"), ("http_2xx", "http://\(host)/")] {
                    cases.append((module, probeTarget, 0, ipProtocol))
                    reasons["\(module) \(probeTarget)"] = reason
                }
            }
        }
        return (cases, reasons)
    }

    /// blackbox_exporter on port 19115 and reach-exporter on 10115, with the same modules.
    private func startBothExporters(in namespace: Namespace) throws {
        let modules = """
            modules:
              icmp:
                prober: icmp
              tcp_connect:
                prober: tcp
              http_2xx:
                prober: http
              http_no_redirect:
                prober: http
                http:
                  follow_redirects: false

            """
        let configPath = try lab.script("blackbox.yml", modules)
        let blackbox = try lab.launch(
            ["prometheus-blackbox-exporter", "--config.file=\(configPath)", "--web.listen-address=127.0.0.1:19115"],
            in: namespace, label: "blackbox")
        try waitForPort(19115, in: namespace, server: blackbox)
        _ = try startExporter(
            ["--config", configPath, "--allow", "198.18.0.0/15", "--allow", "2001:db8::/32", "--allow", "203.0.113.0/24",
             "--allow", "198.51.100.0/24", "--allow", "far.lab", "--allow", "nosuch.lab"],
            in: namespace)
    }

    /// One probe asked of reach-exporter (port 10115) and blackbox_exporter (19115), each
    /// answering 200: reach's samples, then blackbox_exporter's.
    func probeBoth(module: String, target: String, in namespace: Namespace) throws -> (mine: [String: Double], theirs: [String: Double]) {
        let query = "/probe?module=\(module)&target=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        let header = ["X-Prometheus-Scrape-Timeout-Seconds:2"]
        let theirs = try get("http://127.0.0.1:19115\(query)", in: namespace, headers: header)
        let ours = try get("http://127.0.0.1:10115\(query)", in: namespace, headers: header)
        XCTAssertEqual(ours.status, 200, "\(module) \(target): \(ours.body)")
        XCTAssertEqual(theirs.status, 200, "\(module) \(target): \(theirs.body)")
        return (samples(ours.body), samples(theirs.body))
    }

    /// One probe asked of both exporters: the same verdict, the expected one, the refusal's
    /// reason when `refusedReason` is set, and every metric of blackbox_exporter's also in reach's.
    private func compareVerdict(_ probe: VerdictCase, refusedReason: String?, in namespace: Namespace) throws {
        let (module, target) = (probe.module, probe.target)
        let (mine, blackboxSamples) = try probeBoth(module: module, target: target, in: namespace)
        for name in ["probe_success", "probe_ip_protocol", "probe_http_redirects", "probe_http_status_code"] {
            XCTAssertEqual(mine[name], blackboxSamples[name], "\(module) \(target): \(name)")
        }
        XCTAssertEqual(mine["probe_success"], probe.success, "\(module) \(target)")
        XCTAssertEqual(mine["probe_ip_protocol"], probe.protocol, "\(module) \(target)")
        let named = mine.filter { $0.key.hasPrefix("reach_probe_route_refused") }
        let expected = refusedReason.map { ["reach_probe_route_refused{reason=\"\($0)\"}": 1.0] } ?? [:]
        XCTAssertEqual(named, expected, "\(module) \(target)")
        // Every failed probe says why: the route's verdict for a refusal, else the case's reason.
        let why = probe.success == 1 ? nil : refusedReason ?? Self.failureReasons["\(module) \(target)"] ?? "(none listed)"
        let failure = mine.filter { $0.key.hasPrefix("reach_probe_failure_info") }
        XCTAssertEqual(failure, why.map { ["reach_probe_failure_info{reason=\"\($0)\"}": 1.0] } ?? [:], "\(module) \(target)")
        // Every metric blackbox_exporter answered that reach also measures has the same name and labels.
        let shared = Set(blackboxSamples.keys).filter { !$0.hasPrefix("probe_ssl") && !$0.hasPrefix("probe_tls") }
        XCTAssertEqual(shared.subtracting(mine.keys), [], "\(module) \(target): metrics blackbox_exporter has and reach does not")
    }

    func testSameVerdictsAsBlackboxExporter() throws {
        let net = try network()
        try Privilege.requireRootAndTools(["prometheus-blackbox-exporter"])
        try startBothExporters(in: net.client)
        let refusals = Self.refusalCases()
        for probe in Self.verdictCases + refusals.cases {
            try compareVerdict(probe, refusedReason: refusals.reasons["\(probe.module) \(probe.target)"], in: net.client)
        }
    }

    // MARK: reach watch --textfile, read by node_exporter

    private func inode(_ path: String) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.systemFileNumber] as? UInt64
    }

    private func waitForFile(_ path: String, containing text: String, timeout: Double = 5) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var content = ""
        while Date() < deadline {
            content = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if content.contains(text) { return content }
            usleep(20_000)
        }
        throw HarnessError("\(path) never held \(text); it holds:\n\(content)")
    }

    func testWatchTextfileIsReplacedOnEachChangeOnlyAndNodeExporterReadsIt() throws {
        let net = try network()
        try Privilege.requireRootAndTools(["prometheus-node-exporter"])
        let directory = "\(lab.directory)/textfile"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = "\(directory)/reach.prom"
        _ = try lab.launch([ReachBinary.path, "watch", "-q", "--textfile", path], in: net.client, label: "watch-textfile")
        let first = try waitForFile(path, containing: "reach_internet_reachable{family=\"ipv4\"} 1.0")
        XCTAssertTrue(first.contains("reach_transitions_total{family=\"ipv4\"} 0\n"), first)
        let info = #"reach_internet_info{family="ipv4",link="v0",kind="virtual",gateway="198.18.0.1",reason=""} 1.0"#
        XCTAssertTrue(first.contains(info), first)
        // Nothing changes, nothing is written.
        let written = try XCTUnwrap(inode(path))
        usleep(1_500_000)
        XCTAssertEqual(inode(path), written, "the file was replaced while nothing changed")

        try net.client.ip("link", "set", "v0", "down")
        let second = try waitForFile(path, containing: "reach_internet_reachable{family=\"ipv4\"} 0.0")
        XCTAssertTrue(second.contains("reach_transitions_total{family=\"ipv4\"} 1\n"), second)
        XCTAssertNotEqual(inode(path), written)
        // Written beside it and renamed: no temporary file stays.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["reach.prom"])

        let nodeExporter = try lab.launch(
            ["prometheus-node-exporter", "--collector.disable-defaults", "--collector.textfile",
             "--collector.textfile.directory=\(directory)", "--web.listen-address=127.0.0.1:19100"],
            in: net.client, label: "node-exporter")
        try waitForPort(19100, in: net.client, server: nodeExporter)
        let scraped = samples(try get("http://127.0.0.1:19100/metrics", in: net.client).body)
        XCTAssertEqual(scraped["reach_internet_reachable{family=\"ipv4\"}"], 0)
        XCTAssertEqual(scraped["reach_transitions_total{family=\"ipv4\"}"], 1)
        XCTAssertEqual(scraped["node_textfile_scrape_error"], 0)
    }

    // MARK: cellular, from ModemManager

    func testRouteModuleAndMetricsCarryTheModemsGeneration() throws {
        try Privilege.requireRootAndTools(["ip", "python3"])
        try SystemBus.require()
        let client = try lab.namespace("client")
        let gateway = try lab.namespace("gateway")
        try lab.veth("wwan0", in: client, peer: "g0", in: gateway)
        try client.ip("address", "add", "198.18.0.2/24", "dev", "wwan0")
        try gateway.ip("address", "add", "198.18.0.1/24", "dev", "g0")
        try client.waitFor(link: "wwan0", operstate: "UP")
        try client.ip("route", "add", "default", "via", "198.18.0.1")
        let bus = try SystemBus(lab: lab, in: client)
        try bus.start("modemmanager")
        try bus.control("add-modem", "wwan0", "5")  // LTE, roaming
        let exporter = try lab.launch(
            ["env", "DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", Self.exporterPath, "--listen", "127.0.0.1:10115", "--allow", "198.18.0.0/15"],
            in: client, label: "reach-exporter")
        try exporter.waitUntilReady(marker: "listening on", timeout: 10)

        let probe = samples(try get("http://127.0.0.1:10115/probe?module=route&target=198.18.0.1", in: client).body)
        XCTAssertEqual(
            probe[#"reach_route_info{reason="",link="wwan0",kind="cellular",gateway="",family="ipv4",generation="4g"}"#], 1, "\(probe)")
        XCTAssertEqual(probe["reach_route_reachable"], 1)
        // /metrics asks ModemManager as `reach watch` does: the link is cellular.
        let deadline = Date().addingTimeInterval(5)
        var info: [String: Double] = [:]
        while Date() < deadline {
            let metrics = samples(try get("http://127.0.0.1:10115/metrics", in: client).body)
            info = metrics.filter { $0.key.hasPrefix(#"reach_internet_info{family="ipv4""#) }
            if !info.isEmpty { break }
            usleep(100_000)
        }
        let expected = #"reach_internet_info{family="ipv4",link="wwan0",kind="cellular",gateway="198.18.0.1",reason=""}"#
        XCTAssertEqual(Array(info.keys), [expected])
    }

    // MARK: ICMP permission, as reach ping

    func testICMPFromADatagramSocketAsAnotherUserElseTheReasonWith500() throws {
        let net = try network()
        try Privilege.requireRootAndTools(["setpriv"])
        let copy = try binaryForOtherUsers(Self.exporterPath)
        // nobody's group may open datagram ICMP sockets here (net/ipv4/ping.c checks the range).
        try net.client.sysctl(["net.ipv4.ping_group_range=65534 65534"])
        let exporter = try lab.launch(
            Self.asNobody + [copy, "--listen", "127.0.0.1:10115", "--allow", "198.18.0.0/15"], in: net.client, label: "exporter-nobody")
        try exporter.waitUntilReady(marker: "listening on", timeout: 10)
        let answered = try get("http://127.0.0.1:10115/probe?module=icmp&target=198.18.0.1", in: net.client)
        XCTAssertEqual(answered.status, 200, answered.body)
        XCTAssertEqual(samples(answered.body)["probe_success"], 1, answered.body)
        let status = try String(contentsOfFile: "/proc/\(exporter.pid)/status", encoding: .utf8)
        XCTAssertTrue(status.contains("CapPrm:\t0000000000000000"), status)

        // No datagram socket allowed and no CAP_NET_RAW: no verdict about the network, but why.
        try net.client.sysctl(["net.ipv4.ping_group_range=1 0"])
        let refused = try get("http://127.0.0.1:10115/probe?module=icmp&target=198.18.0.1", in: net.client)
        XCTAssertEqual(refused.status, 500, refused.body)
        XCTAssertTrue(refused.body.hasPrefix("probe could not run: "), refused.body)
        XCTAssertEqual(refused.body.split(separator: "\n").count, 1, refused.body)
    }

    // MARK: hostile clients

    func testHostileClientsGetTheirStatusAndTheExporterKeepsServing() throws {
        let net = try network()
        let exporter = try startExporter(
            ["--allow", "198.18.0.0/15", "--header-timeout", "2s", "--concurrency", "2", "--queue", "2"], in: net.client)
        let result = try net.client.exec(
            ["python3", try HelperScript.path("exporter-client.py"), "hostile", "127.0.0.1", "10115"], timeout: 240)
        guard result.status == 0, let outcome = try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: Any] else {
            return XCTFail("exporter-client hostile: \(result)")
        }
        XCTAssertEqual(outcome["malformed"] as? String, "HTTP/1.1 400 Bad Request")
        XCTAssertEqual(outcome["binary"] as? String, "HTTP/1.1 400 Bad Request")
        XCTAssertEqual(outcome["huge_headers"] as? String, "HTTP/1.1 431 Request Header Fields Too Large")
        XCTAssertEqual(outcome["head_over_limit"] as? String, "HTTP/1.1 431 Request Header Fields Too Large")
        XCTAssertEqual(outcome["outside_allow"] as? String, "HTTP/1.1 403 Forbidden")
        XCTAssertEqual(outcome["unknown_module"] as? String, "HTTP/1.1 400 Bad Request")
        XCTAssertEqual(outcome["post"] as? String, "HTTP/1.1 405 Method Not Allowed")
        XCTAssertEqual(outcome["connections"] as? [String: Int], ["200": 1000])
        // Two probes run, two wait; the other sixteen are refused at once.
        XCTAssertEqual(outcome["probe_burst"] as? [String: Int], ["200": 4, "503": 16])
        // A byte a second: cut off after the 2 s header limit, with 408; an idle connection closed silently.
        XCTAssertEqual(outcome["line"] as? String, "HTTP/1.1 408 Request Timeout")
        let slowSeconds = try XCTUnwrap(outcome["seconds"] as? Double)
        XCTAssertGreaterThanOrEqual(slowSeconds, 1.9)
        XCTAssertLessThan(slowSeconds, 4)
        XCTAssertEqual(outcome["idle"] as? String, "")
        XCTAssertEqual(outcome["after"] as? String, "HTTP/1.1 200 OK")

        // Still serving, memory bounded, no descriptor left behind.
        XCTAssertFalse(Subprocess.hasExited(exporter.pid), exporter.log)
        let status = try String(contentsOfFile: "/proc/\(exporter.pid)/status", encoding: .utf8)
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        // Under AddressSanitizer, its quarantine holds freed memory back (256 MiB by default).
        let bound = ProcessInfo.processInfo.environment["REACH_SANITIZER"] == "address" ? 512 : 96
        XCTAssertLessThan(peak, bound * 1024, "peak resident memory \(peak) KiB")
        let metrics = samples(try get("http://127.0.0.1:10115/metrics", in: net.client).body)
        XCTAssertLessThan(try XCTUnwrap(metrics["process_open_fds"]), 40)
        // SIGTERM: the loop and the probe threads shut down, exit 0.
        kill(exporter.pid, SIGTERM)
        XCTAssertEqual(exporter.waitForExit(), 0, exporter.log)
    }

    /// Two probes of a silent target with one thread and a 4 s scrape timeout: the second
    /// waits in the queue, and that wait counts against its timeout, so both answers come
    /// within the 4 s Prometheus waits (the second took 6.8 s when it did not count).
    func testQueueTimeCountsAgainstTheScrapeTimeout() throws {
        let net = try network()
        _ = try startExporter(["--concurrency", "1", "--allow", "198.18.0.0/15"], in: net.client)
        let client = try HelperScript.path("exporter-client.py")
        let get = "python3 \(client) get 'http://127.0.0.1:10115/probe?module=icmp&target=198.18.0.99'"
            + " X-Prometheus-Scrape-Timeout-Seconds:4"
        let both = try net.client.exec(["sh", "-c", "\(get) & \(get) & wait"])
        XCTAssertEqual(both.status, 0, "\(both)")
        let answers = both.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(answers.map { $0["status"] as? Int }, [200, 200], "\(both)")
        for answer in answers {
            XCTAssertEqual(samples(answer["body"] as? String ?? "")["probe_success"], 0, "\(answer)")
            // From the request to the whole answer, as the scrape waits for it.
            XCTAssertLessThan(try XCTUnwrap(answer["seconds"] as? Double), 4, "\(both)")
        }
    }

    func testAnIPv6ListenAddressIsLoggedInBrackets() throws {
        try Privilege.requireRootAndTools(["ip"])
        let namespace = try lab.namespace("v6")
        let exporter = try lab.launch([Self.exporterPath, "--listen", "[::1]:10119"], in: namespace, label: "reach-exporter")
        try exporter.waitUntilReady(marker: "listening on", timeout: 10)
        XCTAssertTrue(exporter.log.contains("reach-exporter: listening on [::1]:10119\n"), exporter.log)
    }
}

/// reach-exporter's refusals at start, without root: one line on stderr, the documented status.
final class ExporterStartTests: XCTestCase {
    func run(_ arguments: [String]) throws -> CommandResult {
        guard access(ExporterTests.exporterPath, X_OK) == 0 else {
            throw HarnessError("no reach-exporter at \(ExporterTests.exporterPath): swift build first")
        }
        return try Subprocess.run([ExporterTests.exporterPath] + arguments, timeout: 20)
    }

    func testBadCommandLinesAreOneLineAndExit64() throws {
        let cases: [([String], String)] = [
            (["--listen", "localhost:80"], "reach-exporter: --listen: 'localhost:80' is not ADDRESS:PORT (127.0.0.1:10115, [::1]:10115)"),
            (["--allow", "10.0.0.0/33"], "reach-exporter: --allow: '10.0.0.0/33' is not a CIDR (198.51.100.0/24, 2001:db8::/32)"),
            (["--bogus"], "reach-exporter: unknown option '--bogus' (see 'reach-exporter --help')"),
            (["--frob"], "reach-exporter: unknown option '--frob'; did you mean '--probe'?"),
            (["--alow", "*"], "reach-exporter: unknown option '--alow'; did you mean '--allow'?"),
            (["--probe", "ftp://x"],
             "reach-exporter: --probe: probe 'ftp://x' is not icmp:HOST, tcp:HOST:PORT or http://HOST[:PORT]/PATH"),
            (["--concurrency"], "reach-exporter: --concurrency needs a value (--concurrency <n>)"),
            (["extra"], "reach-exporter: unexpected argument 'extra'"),
        ]
        for (arguments, message) in cases {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result)")
            XCTAssertEqual(result.stderrLines, [message], "\(arguments)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
        }
    }

    func testAnUnsupportedConfigurationKeyIsNamedWithItsLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-exporter-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("blackbox.yml").path
        let yaml = "modules:\n  web:\n    prober: http\n    http:\n      proxy_url: socks4://proxy.lab\n"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try run(["--config", path])
        XCTAssertEqual(result.status, 78, "\(result)")
        XCTAssertEqual(
            result.stderrLines,
            [
                "reach-exporter: \(path): line 5: http.proxy_url: 'socks4://proxy.lab': socks4:// proxies are not supported "
                    + "(http, https and socks5 are)"
            ])
        let missing = try run(["--config", directory.appendingPathComponent("none.yml").path])
        XCTAssertEqual(missing.status, 78, "\(missing)")
        XCTAssertEqual(missing.stderrLines.count, 1, "\(missing)")
    }

    func testATextfileThatCannotBeWrittenEndsTheWatchWith71() throws {
        let result = try ReachBinary.run(["watch", "-q", "--textfile", "/nonexistent-\(getpid())/reach.prom"], timeout: 10)
        XCTAssertEqual(result.status, 71, "\(result)")
        XCTAssertEqual(result.stderrLines.count, 1, "\(result)")
        // The path given comes first, then the temporary file reach writes it as.
        XCTAssertTrue(
            result.stderr.hasPrefix("reach: system failure: open /nonexistent-\(getpid())/reach.prom (as /nonexistent-"), result.stderr)
    }

    func testVersionIsReachsOwn() throws {
        let result = try run(["--version"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdout, "reach-exporter \(try ReachBinary.run(["--version"]).stdout.dropFirst("reach ".count))")
        XCTAssertEqual(result.stderr, "")
    }

    func testHelpIsPrintedAndExitsZero() throws {
        let result = try run(["--help"])
        XCTAssertEqual(result.status, 0)
        // Too many options to list on the usage line: they follow, one a line.
        XCTAssertTrue(result.stdout.contains("\nUSAGE: reach-exporter [<options>]"), result.stdout)
        let options = ["--allow", "--config", "--probe", "--concurrency", "--queue", "--header-timeout", "--max-connections"]
            + ["--config.file", "--web.listen-address", "--web.config.file", "--timeout-offset", "--log.level", "--log.format"]
        for option in options {
            XCTAssertTrue(result.stdout.contains("\n  " + option + " <"), "\(option) missing:\n\(result.stdout)")
        }
    }
}

// MARK: Health and reload

extension ExporterTests {
    /// SIGHUP and POST /-/reload read --config again; a file that cannot be used leaves the
    /// old modules in force, says why in one line and sets the gauge to 0 (blackbox_exporter's
    /// behaviour, `blackbox_exporter_config_last_reload_successful`).
    func testReloadKeepsTheOldConfigurationWhenTheNewOneIsBad() throws {
        try Privilege.requireRootAndTools(["ip", "python3"])
        let client = try lab.namespace("client")
        try client.ip("link", "set", "lo", "up")
        let path = "\(lab.directory)/blackbox.yml"
        try "modules:\n  ping:\n    prober: route\n".write(toFile: path, atomically: true, encoding: .utf8)
        let exporter = try startExporter(["--config", path, "--allow", "127.0.0.0/8"], in: client)
        let base = "http://127.0.0.1:10115"
        XCTAssertEqual(try get("\(base)/-/healthy", in: client).body, "Healthy\n")
        func gauge() throws -> Double? {
            samples(try get("\(base)/metrics", in: client).body)["reach_exporter_config_last_reload_successful"]
        }
        func probeStatus(_ module: String) throws -> Int { try get("\(base)/probe?target=127.0.0.1&module=\(module)", in: client).status }
        XCTAssertEqual(try gauge(), 1)
        XCTAssertEqual(try probeStatus("ping"), 200)

        // A bad file on SIGHUP: still serving the old module, one line, the gauge at 0.
        try "modules:\n  web:\n    prober: gopher\n".write(toFile: path, atomically: true, encoding: .utf8)
        kill(exporter.pid, SIGHUP)
        let deadline = Date().addingTimeInterval(5)
        while try gauge() != 0, Date() < deadline { usleep(50_000) }
        XCTAssertEqual(try gauge(), 0)
        XCTAssertFalse(Subprocess.hasExited(exporter.pid), exporter.log)
        XCTAssertEqual(try probeStatus("ping"), 200)
        let reloadLines = exporter.log.split(separator: "\n").filter { $0.contains("reload") }.map(String.init)
        XCTAssertEqual(reloadLines, [
            "reach-exporter: reload failed, the previous configuration stays: "
                + "\(path): line 3: unknown prober 'gopher' (http, tcp, icmp, dns, grpc or reach's route or trace)"
        ])

        // POST /-/reload of the same bad file: 500 with the reason; GET is refused.
        let refused = try get("\(base)/-/reload", in: client, method: "post")
        XCTAssertEqual(refused.status, 500)
        XCTAssertTrue(refused.body.hasPrefix("failed to reload config: \(path): line 3"), refused.body)
        XCTAssertEqual(try get("\(base)/-/reload", in: client).status, 405)

        // A good file through POST /-/reload: its module answers, the old one is gone, the gauge is back at 1.
        try "modules:\n  path:\n    prober: route\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try get("\(base)/-/reload", in: client, method: "post").status, 200)
        XCTAssertEqual(try gauge(), 1)
        XCTAssertEqual(try probeStatus("path"), 200)
        XCTAssertEqual(try probeStatus("ping"), 400)
        kill(exporter.pid, SIGTERM)
        XCTAssertEqual(exporter.waitForExit(), 0, exporter.log)
    }
}

// MARK: blackbox_exporter's command line and web configuration

extension ExporterTests {
    /// exporter-toolkit's basic_auth_users: a bcrypt hash made by python3's crypt module; every
    /// path asks for the user and password, 401 without them or with wrong ones.
    func testBasicAuthUsersGuardEveryPath() throws {
        try Privilege.requireRootAndTools(["ip", "python3"])
        let client = try lab.namespace("auth")
        try client.ip("link", "set", "lo", "up")
        let made = try Subprocess.run([
            "python3", "-W", "ignore", "-c", "import crypt; print(crypt.crypt('s3cret', crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))",
        ])
        let hash = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(hash.hasPrefix("$2b$04$"), "\(made)")
        let path = "\(lab.directory)/web.yml"
        try "basic_auth_users:\n  prometheus: '\(hash)'\n".write(toFile: path, atomically: true, encoding: .utf8)
        let exporter = try startExporter(["--web.config.file", path, "--allow", "127.0.0.0/8"], in: client)
        let base = "http://127.0.0.1:10115"
        let good = "Authorization:Basic " + Data("prometheus:s3cret".utf8).base64EncodedString()
        let wrong = "Authorization:Basic " + Data("prometheus:secret".utf8).base64EncodedString()
        // The pages too: the probe above is the page's log 0.
        for url in ["\(base)/metrics", "\(base)/-/healthy", "\(base)/probe?module=route&target=127.0.0.1", "\(base)/", "\(base)/config",
                    "\(base)/logs?id=0"] {
            let refused = try get(url, in: client)
            XCTAssertEqual(refused.status, 401, url)
            XCTAssertEqual(refused.body, "Unauthorized\n", url)
            XCTAssertEqual(try get(url, in: client, headers: [wrong]).status, 401, url)
            XCTAssertEqual(try get(url, in: client, headers: [good]).status, 200, url)
        }
        kill(exporter.pid, SIGTERM)
        XCTAssertEqual(exporter.waitForExit(), 0, exporter.log)
    }
}

extension ExporterStartTests {
    /// --config.check exits 0 or 1 as blackbox_exporter; Debian's own file names keys that
    /// reach-exporter does not run yet, and says the first with its line.
    func testConfigCheckAndBlackboxFlags() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-exporter-check-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.yml").path
        try "modules:\n  icmp:\n    prober: icmp\n    timeout: 5s\n".write(toFile: good, atomically: true, encoding: .utf8)
        let checked = try run(["--config.file", good, "--config.check"])
        XCTAssertEqual(checked.status, 0, "\(checked)")
        XCTAssertEqual(checked.stderrLines, ["reach-exporter: config file is ok: \(good)"])
        XCTAssertEqual(checked.stdout, "")
        let debian = "/etc/prometheus/blackbox.yml"
        if FileManager.default.fileExists(atPath: debian) {
            // The file Debian's package installs, as it is: every module runs.
            let shipped = try run(["--config.file=\(debian)", "--config.check", "--log.format", "logfmt"])
            XCTAssertEqual(shipped.status, 0, "\(shipped)")
            XCTAssertEqual(shipped.stderrLines.count, 1, "\(shipped)")
            XCTAssertTrue(shipped.stderr.contains(#"msg="config file is ok: /etc/prometheus/blackbox.yml""#), shipped.stderr)
        }
        let refusing = directory.appendingPathComponent("refusing.yml").path
        try "modules:\n  w:\n    prober: http\n    http:\n      headers: {}\n      proxy_url: socks4://proxy.lab\n".write(
            toFile: refusing, atomically: true, encoding: .utf8)
        let refused = try run(["--config.file=\(refusing)", "--config.check", "--log.format", "logfmt"])
        XCTAssertEqual(refused.status, 1, "\(refused)")
        XCTAssertEqual(refused.stderrLines.count, 1, "\(refused)")
        XCTAssertTrue(refused.stderr.contains(#"level=error msg="error loading config: \#(refusing): line 6: "#
            + #"http.proxy_url: 'socks4://proxy.lab': socks4:// proxies are not supported (http, https and socks5 are)""#), refused.stderr)
        let web = directory.appendingPathComponent("web.yml").path
        try "basic_auth_users:\n  u: plain\n".write(toFile: web, atomically: true, encoding: .utf8)
        let badWeb = try run(["--web.config.file", web])
        XCTAssertEqual(badWeb.status, 78, "\(badWeb)")
        XCTAssertEqual(badWeb.stderrLines, ["reach-exporter: \(web): line 2: basic_auth_users.u: not a bcrypt hash ($2y$, $2b$ or $2a$)"])
        let quiet = try run(["--config.file", good, "--config.check", "--log.level", "error"])
        XCTAssertEqual(quiet.status, 0, "\(quiet)")
        XCTAssertEqual(quiet.stderr, "", "info lines hidden below --log.level error")
    }
}

// MARK: contrib/: the alerting rules and the Grafana dashboard

extension ExporterTests {
    static let contrib = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("contrib").path

    /// `promtool check rules`, then its unit tests of each alert (reach.rules.test.yml).
    func testTheAlertingRulesPassPromtool() throws {
        try Privilege.requireRootAndTools(["promtool"])
        let rules = "\(Self.contrib)/prometheus/reach.rules.yml"
        let check = try Subprocess.run(["promtool", "check", "rules", rules])
        XCTAssertEqual(check.status, 0, "\(check)")
        XCTAssertTrue(check.stdout.contains("SUCCESS: 5 rules found"), check.stdout)
        let unit = try Subprocess.run(["promtool", "test", "rules", "\(Self.contrib)/prometheus/reach.rules.test.yml"])
        XCTAssertEqual(unit.status, 0, "\(unit)")
        XCTAssertTrue(unit.stdout.contains("SUCCESS"), unit.stdout)
    }

    /// Every query of the dashboard, run by a real Prometheus scraping reach-exporter's
    /// /metrics and its probes (icmp and route), returns series; the rules load there too.
    func testEveryDashboardQueryReturnsSeries() throws {
        let net = try network()
        try Privilege.requireRootAndTools(["prometheus"])
        let dashboard = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: "\(Self.contrib)/grafana/reach-exporter.json"))) as? [String: Any]
        let panels = try XCTUnwrap(dashboard?["panels"] as? [[String: Any]])
        let queries = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        XCTAssertEqual(queries.count, 10)
        _ = try startExporter(["--allow", "198.18.0.0/15", "--allow", "203.0.113.0/24"], in: net.client)
        let config = """
            global:
              scrape_interval: 1s
              scrape_timeout: 900ms
              evaluation_interval: 1s
            rule_files: [\(Self.contrib)/prometheus/reach.rules.yml]
            scrape_configs:
              - job_name: reach
                static_configs:
                  - targets: [127.0.0.1:10115]

            """ + Self.probeJob("reach_probe", module: "icmp", targets: "198.18.0.1")
            + Self.probeJob("reach_route", module: "route", targets: "198.18.0.1, 203.0.113.1")
        let configPath = try lab.script("prometheus.yml", config)
        let prometheus = try lab.launch(
            [
                "prometheus", "--config.file=\(configPath)", "--storage.tsdb.path=\(lab.directory)/tsdb",
                "--web.listen-address=127.0.0.1:19090",
            ], in: net.client, label: "prometheus")
        try prometheus.waitUntilReady(marker: "Server is ready to receive web requests", timeout: 30)

        // Until each query has series (increase() needs two scrapes), at most 20 s.
        var empty = queries
        let deadline = Date().addingTimeInterval(20)
        while !empty.isEmpty, Date() < deadline {
            empty = try empty.filter { try prometheusQuery($0, in: net.client, port: 19090).isEmpty }
            if !empty.isEmpty { usleep(500_000) }
        }
        XCTAssertEqual(empty, [], "queries without series; prometheus log:\n\(prometheus.log)")
        let rules = try get("http://127.0.0.1:19090/api/v1/rules", in: net.client)
        XCTAssertEqual(rules.status, 200)
        XCTAssertEqual(rules.body.components(separatedBy: "\"type\":\"alerting\"").count - 1, 5, rules.body)
        XCTAssertFalse(rules.body.contains("\"health\":\"err\""), rules.body)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import XCTest

/// The continuous prober beside smokeping_prober 0.6.1 (Debian's, unpacked by
/// scripts/install-deps.sh test), both in the client namespace of a chain whose far host
/// drops every fifth echo request to one of its addresses.
extension ExporterTests {
    static let smokepingProber: String = {
        if let path = ProcessInfo.processInfo.environment["SMOKEPING_PROBER"], !path.isEmpty { return path }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.appendingPathComponent(".build/smokeping/usr/bin/prometheus-smokeping-prober").path
    }()

    /// The chain, the far host's 198.18.1.4 dropping every fifth echo request (nftables'
    /// numgen counter: the 5th, 10th, 15th...), and dnsmasq in the router, the client's
    /// resolver: `far.lab` with an A and an AAAA record, `moving.lab` from the hosts file
    /// `movingHosts` (read again on SIGHUP), every name under .invalid NXDOMAIN.
    private func smokepingLab() throws -> (chain: ChainTopology, dns: BackgroundProcess, movingHosts: String) {
        try Privilege.requireRootAndTools(["ip", "nft", "python3", "dnsmasq"])
        if access(Self.smokepingProber, X_OK) != 0 {
            try ContinuousIntegration.cannotRun(
                "the smokeping tests need smokeping_prober at \(Self.smokepingProber) (scripts/install-deps.sh test)")
        }
        let chain = try ChainTopology(lab: lab)
        try chain.far.ip("addr", "add", "198.18.1.4/24", "dev", "f0")
        try lab.nft(
            in: chain.far, name: "fifth",
            """
            table ip rchfifth {
              chain input {
                type filter hook input priority 0;
                ip daddr 198.18.1.4 icmp type echo-request numgen inc mod 5 0 drop
              }
            }
            """)
        let movingHosts = "\(lab.directory)/moving.hosts"
        try "198.18.1.2 moving.lab\n".write(toFile: movingHosts, atomically: false, encoding: .utf8)
        let dns = try lab.startDNSMasq(
            in: chain.router, address: "198.18.0.1", records: ["far.lab": ["198.18.1.2", "2001:db8:1::2"]], nonexistent: ["invalid"],
            options: ["--addn-hosts=\(movingHosts)"])
        let etc = "/etc/netns/\(chain.client.name)"
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: etc) }
        try "127.0.0.1 localhost\n".write(toFile: "\(etc)/hosts", atomically: true, encoding: .utf8)
        try "nameserver 198.18.0.1\noptions timeout:2 attempts:2\n".write(toFile: "\(etc)/resolv.conf", atomically: true, encoding: .utf8)
        return (chain, dns, movingHosts)
    }

    /// The samples of reach's /metrics whose name starts with `prefix`, once `ready` holds.
    private func waitForSamples(
        _ url: String, in namespace: Namespace, timeout: Double = 20, until ready: ([String: Double]) -> Bool
    ) throws -> [String: Double] {
        let deadline = Date().addingTimeInterval(timeout)
        var latest: [String: Double] = [:]
        while Date() < deadline {
            latest = samples(try get(url, in: namespace).body)
            if ready(latest) { return latest }
            usleep(200_000)
        }
        XCTFail("\(url) never ready: \(latest.filter { $0.key.hasPrefix("smokeping") || $0.key.hasPrefix("reach_smokeping") })")
        return latest
    }

    /// Each family's HELP and TYPE lines in an exposition.
    private func helpAndType(of body: String) -> [String: [String]] {
        var found: [String: [String]] = [:]
        for line in body.split(separator: "\n") where line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
            found[String(line.split(separator: " ")[2]), default: []].append(String(line))
        }
        return found
    }

    /// The series of one family in an exposition, by the text between the braces.
    private func series(_ name: String, in values: [String: Double]) -> [String: Double] {
        var found: [String: Double] = [:]
        for (key, value) in values where key.hasPrefix(name + "{") { found[String(key.dropFirst(name.count))] = value }
        return found
    }

    func testSmokepingBesideSmokepingProberThroughARouter() throws {
        let (chain, dns, movingHosts) = try smokepingLab()
        let file = try lab.script("smokeping.yml", """
            targets:
            - hosts: [198.18.1.2, far.lab, moving.lab]
              interval: 200ms
            - hosts: [198.18.1.4]
              interval: 100ms

            """)
        let theirs = try lab.launch(
            [Self.smokepingProber, "--config.file=\(file)", "--web.listen-address=127.0.0.1:19374", "--privileged"],
            in: chain.client, label: "smokeping_prober")
        try waitForPort(19374, in: chain.client, server: theirs)
        let exporter = try startExporter(["--smokeping", "--config.file=\(file)", "--resolve-interval", "1s"], in: chain.client)
        let mine = "http://127.0.0.1:10115/metrics"
        let key = "{host=\"198.18.1.4\",ip=\"198.18.1.4\"}"
        let reach = try waitForSamples(mine, in: chain.client) { ($0["smokeping_requests_total" + key] ?? 0) >= 40 }
        let smokeping = try waitForSamples("http://127.0.0.1:19374/metrics", in: chain.client) {
            ($0["smokeping_response_ttl{host=\"198.18.1.2\",ip=\"198.18.1.2\"}"] ?? 0) > 0
        }

        // The same families, series and buckets where both probe the same address; the TTL
        // the router left, 63.
        let families = ["smokeping_requests_total", "smokeping_response_duplicates_total", "smokeping_response_ttl"]
        for family in families + ["smokeping_response_duration_seconds_bucket", "smokeping_response_duration_seconds_count"] {
            let theirKeys = Set(series(family, in: smokeping).keys.filter { $0.hasPrefix("{host=\"198.18.1.2\"") })
            let myKeys = Set(series(family, in: reach).keys.filter { $0.hasPrefix("{host=\"198.18.1.2\"") })
            XCTAssertEqual(myKeys, theirKeys, family)
            XCTAssertFalse(myKeys.isEmpty, family)
        }
        // The same HELP and TYPE lines.
        let ours = helpAndType(of: try get(mine, in: chain.client).body)
        let peer = helpAndType(of: try get("http://127.0.0.1:19374/metrics", in: chain.client).body)
        for family in families + ["smokeping_response_duration_seconds", "smokeping_prober_config_last_reload_successful"] {
            XCTAssertEqual(ours[family], peer[family], family)
            XCTAssertNotNil(ours[family], family)
        }
        XCTAssertEqual(reach["smokeping_response_ttl{host=\"198.18.1.2\",ip=\"198.18.1.2\"}"], 63)
        XCTAssertEqual(smokeping["smokeping_response_ttl{host=\"198.18.1.2\",ip=\"198.18.1.2\"}"], 63)
        // Every address of far.lab is its own series; smokeping_prober pings one.
        XCTAssertEqual(
            Set(series("smokeping_requests_total", in: reach).keys.filter { $0.contains("far.lab") }),
            ["{host=\"far.lab\",ip=\"198.18.1.2\"}", "{host=\"far.lab\",ip=\"2001:db8:1::2\"}"])
        XCTAssertEqual(series("smokeping_requests_total", in: smokeping).keys.filter { $0.contains("far.lab") }.count, 1)

        // Exact loss: the far host dropped the 5th, 10th, 15th... request (nft_ng_inc_gen in
        // net/netfilter/nft_numgen.c returns the counter after its increment); one may be in flight.
        let requests = Int(try XCTUnwrap(reach["smokeping_requests_total" + key]))
        let answered = Int(try XCTUnwrap(reach["smokeping_response_duration_seconds_count" + key]))
        let dropped = requests / 5
        XCTAssertLessThanOrEqual(answered, requests - dropped, "\(requests) requests")
        XCTAssertGreaterThanOrEqual(answered, requests - dropped - 1, "\(requests) requests")
        XCTAssertEqual(reach["smokeping_send_errors_total" + key], 0)

        XCTAssertEqual(reach["smokeping_response_ttl{host=\"moving.lab\",ip=\"198.18.1.2\"}"], 63)
        try assertTheMovingNameMoves(mine, in: chain.client, dns: dns, hostsFile: movingHosts)
        XCTAssertFalse(Subprocess.hasExited(exporter.pid), exporter.log)
    }

    /// moving.lab moves (dnsmasq reads its hosts file again on SIGHUP): its old address's
    /// series go, the new one comes, within a few lookups (--resolve-interval 1s).
    private func assertTheMovingNameMoves(_ metrics: String, in namespace: Namespace, dns: BackgroundProcess, hostsFile: String) throws {
        try "198.18.1.4 moving.lab\n".write(toFile: hostsFile, atomically: false, encoding: .utf8)
        kill(dns.pid, SIGHUP)
        let moved = try waitForSamples(metrics, in: namespace) { values in
            let moving = self.series("smokeping_requests_total", in: values).keys.filter { $0.contains("moving.lab") }
            return moving == ["{host=\"moving.lab\",ip=\"198.18.1.4\"}"]
        }
        XCTAssertNil(moved["smokeping_response_ttl{host=\"moving.lab\",ip=\"198.18.1.2\"}"])
    }

    func testSmokepingReloadBlackholeAndBadFiles() throws {
        let chain = try smokepingLab().chain
        try chain.client.ip("route", "add", "blackhole", "203.0.113.0/24")
        let path = "\(lab.directory)/smokeping.yml"
        try "targets:\n- hosts: [198.18.1.2]\n  interval: 100ms\n".write(toFile: path, atomically: true, encoding: .utf8)
        let exporter = try startExporter(["--smokeping", "--config.file=\(path)", "--resolve-interval", "1s"], in: chain.client)
        let mine = "http://127.0.0.1:10115/metrics"
        _ = try waitForSamples(mine, in: chain.client) { ($0["smokeping_response_ttl{host=\"198.18.1.2\",ip=\"198.18.1.2\"}"] ?? 0) > 0 }

        // POST /-/reload: a blackholed target, an IPv6 one and a name that never resolves
        // join; the blackholed one's refused sends are counted with their route type.
        try """
            targets:
            - hosts: [198.18.1.2, 203.0.113.9, 2001:db8:1::2, nowhere.invalid]
              interval: 100ms
              labels: {site: lab}

            """.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try get("http://127.0.0.1:10115/-/reload", in: chain.client, method: "post").status, 200)
        let blackholed = "{host=\"203.0.113.9\",ip=\"203.0.113.9\",site=\"lab\"}"
        let after = try waitForSamples(mine, in: chain.client) { values in
            (values["smokeping_send_errors_total" + blackholed] ?? 0) >= 5
                && (values["smokeping_response_ttl{host=\"2001:db8:1::2\",ip=\"2001:db8:1::2\",site=\"lab\"}"] ?? 0) > 0
        }
        XCTAssertEqual(after["smokeping_prober_config_last_reload_successful"], 1)
        XCTAssertEqual(
            after["reach_smokeping_send_refusals_total{host=\"203.0.113.9\",ip=\"203.0.113.9\",reason=\"blackhole_route\",site=\"lab\"}"],
            after["smokeping_send_errors_total" + blackholed])
        XCTAssertGreaterThanOrEqual(after["reach_smokeping_resolution_failures_total{host=\"nowhere.invalid\"}"] ?? 0, 1)
        XCTAssertEqual(after["smokeping_response_ttl{host=\"2001:db8:1::2\",ip=\"2001:db8:1::2\",site=\"lab\"}"], 63)
        // The old group's series left with it.
        XCTAssertNil(after["smokeping_requests_total{host=\"198.18.1.2\",ip=\"198.18.1.2\"}"])

        // SIGHUP with an unknown key: one line naming it, the gauge at 0, the targets go on.
        try "targets:\n- hosts: [198.18.1.2]\n  colour: blue\n".write(toFile: path, atomically: true, encoding: .utf8)
        kill(exporter.pid, SIGHUP)
        let refused = try waitForSamples(mine, in: chain.client) { $0["smokeping_prober_config_last_reload_successful"] == 0 }
        let before = refused["smokeping_requests_total" + blackholed] ?? 0
        let later = try waitForSamples(mine, in: chain.client) { ($0["smokeping_requests_total" + blackholed] ?? 0) > before + 3 }
        XCTAssertGreaterThan(later["smokeping_requests_total" + blackholed] ?? 0, before)
        let lines = exporter.log.split(separator: "\n").filter { $0.contains("reload failed") }
        XCTAssertEqual(lines.map(String.init), [
            "reach-exporter: reload failed, the previous configuration stays: \(path): line 3: "
                + "targets.colour: unknown key (smokeping_prober has no such setting)"
        ])
        kill(exporter.pid, SIGTERM)
        XCTAssertEqual(exporter.waitForExit(), 0, exporter.log)
    }

    /// `protocol: tcp`: the handshake timed through the router, in both families; a closed
    /// port counts requests and no response.
    func testSmokepingTCPTimesTheHandshake() throws {
        let chain = try smokepingLab().chain
        let server = try lab.launch(["python3", "-m", "http.server", "--bind", "::", "8080"], in: chain.far, label: "http-server")
        try waitForPort(8080, in: chain.far, server: server)
        let file = try lab.script("smokeping.yml", """
            targets:
            - hosts: [198.18.1.2, 2001:db8:1::2]
              protocol: tcp
              port: 8080
              interval: 100ms
            - hosts: [198.18.1.2]
              protocol: tcp
              port: 8081
              interval: 100ms
              labels: {port: closed}

            """)
        _ = try startExporter(["--smokeping", "--config.file=\(file)"], in: chain.client)
        let open4 = "{host=\"198.18.1.2\",ip=\"198.18.1.2\"}"
        let open6 = "{host=\"2001:db8:1::2\",ip=\"2001:db8:1::2\"}"
        let closed = "{host=\"198.18.1.2\",ip=\"198.18.1.2\",port=\"closed\"}"
        let counted = try waitForSamples("http://127.0.0.1:10115/metrics", in: chain.client) { values in
            [open4, open6, closed].allSatisfy { (values["smokeping_requests_total" + $0] ?? 0) >= 10 }
                && (values["smokeping_response_duration_seconds_count" + open6] ?? 0) >= 10
        }
        XCTAssertGreaterThanOrEqual(counted["smokeping_response_duration_seconds_count" + open4] ?? 0, 9)
        XCTAssertEqual(counted["smokeping_response_duration_seconds_count" + closed], 0)
        XCTAssertEqual(counted["smokeping_send_errors_total" + closed], 0)
        // A handshake through a veth and a router takes well under a second.
        let sum = counted["smokeping_response_duration_seconds_sum" + open4] ?? 0
        let count = counted["smokeping_response_duration_seconds_count" + open4] ?? 1
        XCTAssertLessThan(sum / count, 1)
    }

    /// A real Prometheus scrapes both exporters; Debian's example-rules.yml for smokeping_prober
    /// evaluates on reach's series as Prometheus would (promtool test rules), fed with what
    /// reach counted over five seconds.
    func testPrometheusScrapesBothAndDebiansRulesEvaluateOnReachsSeries() throws {
        let chain = try smokepingLab().chain
        try Privilege.requireRootAndTools(["prometheus", "promtool"])
        var root = URL(fileURLWithPath: Self.smokepingProber)
        for _ in 0..<2 { root.deleteLastPathComponent() }
        let rules = root.appendingPathComponent("share/doc/prometheus-smokeping-prober/examples/example-rules.yml").path
        let file = try lab.script("smokeping.yml", "targets:\n- hosts: [198.18.1.4]\n  interval: 100ms\n")
        let theirs = try lab.launch(
            [Self.smokepingProber, "--config.file=\(file)", "--web.listen-address=127.0.0.1:19374", "--privileged"],
            in: chain.client, label: "smokeping_prober")
        try waitForPort(19374, in: chain.client, server: theirs)
        _ = try startExporter(["--smokeping", "--config.file=\(file)"], in: chain.client)
        let config = """
            global:
              scrape_interval: 1s
              scrape_timeout: 900ms
            scrape_configs:
              - job_name: reach
                static_configs: [{targets: [127.0.0.1:10115]}]
              - job_name: smokeping
                static_configs: [{targets: [127.0.0.1:19374]}]

            """
        let prometheus = try lab.launch(
            ["prometheus", "--config.file=\(try lab.script("prometheus.yml", config))", "--storage.tsdb.path=\(lab.directory)/tsdb",
             "--web.listen-address=127.0.0.1:19090", "--enable-feature=native-histograms"],
            in: chain.client, label: "prometheus")
        try prometheus.waitUntilReady(marker: "Server is ready to receive web requests", timeout: 30)
        var jobs: [String: String] = [:]
        let deadline = Date().addingTimeInterval(20)
        while jobs.count < 2, Date() < deadline {
            jobs = values(try prometheusQuery("smokeping_response_ttl{host=\"198.18.1.4\"}", in: chain.client, port: 19090), by: "job")
            usleep(250_000)
        }
        XCTAssertEqual(jobs, ["reach": "63", "smokeping": "63"], prometheus.log)
        try assertHistogramKinds(in: chain.client, prometheus: prometheus)

        // Five seconds of reach's counts, as promtool's input series, one step per 5 s.
        let url = "http://127.0.0.1:10115/metrics"
        let before = samples(try get(url, in: chain.client).body)
        sleep(5)
        let after = samples(try get(url, in: chain.client).body)
        var steps: [String: Double] = [:]
        for (name, value) in after where name.contains("host=\"198.18.1.4\"") && !name.hasPrefix("smokeping_response_ttl") {
            steps[name] = value - (before[name] ?? 0)
        }
        let key = "{host=\"198.18.1.4\",ip=\"198.18.1.4\"}"
        let ratio = (steps["smokeping_response_duration_seconds_count" + key] ?? 0) / (steps["smokeping_requests_total" + key] ?? 1)
        XCTAssertEqual(ratio, 0.8, accuracy: 0.05)
        let test = promtoolTest(rules: rules, steps: steps, ratio: ratio, buckets: bucketSteps(steps, key: key))
        let result = try chain.client.exec(["promtool", "test", "rules", try lab.script("smokeping-rules-test.yml", test)])
        XCTAssertEqual(result.status, 0, "\(result)\n\(test)")
    }

    /// reach's round trips stored as one native histogram series (negotiated by Accept),
    /// smokeping_prober's as classic buckets.
    private func assertHistogramKinds(in namespace: Namespace, prometheus: BackgroundProcess) throws {
        var native: [[String: Any]] = []
        let waitNative = Date().addingTimeInterval(20)
        while native.isEmpty, Date() < waitNative {
            native = try prometheusQuery("histogram_count(rate(smokeping_response_duration_seconds{job=\"reach\"}[5s])) > 0",
                                         in: namespace, port: 19090)
            usleep(250_000)
        }
        XCTAssertEqual(native.count, 1, prometheus.log)
        let classic = try prometheusQuery(
            "smokeping_response_duration_seconds_bucket{job=\"smokeping\",le=\"+Inf\"}", in: namespace, port: 19090)
        XCTAssertEqual(classic.count, 1)
    }

    /// The `le` bounds and counts of one series' buckets, in order.
    private func bucketSteps(_ steps: [String: Double], key: String) -> [(bound: Double, count: Double)] {
        let prefix = "smokeping_response_duration_seconds_bucket" + key.dropLast() + ",le=\""
        return steps.compactMap { name, count -> (Double, Double)? in
            guard name.hasPrefix(prefix) else { return nil }
            let bound = name.dropFirst(prefix.count).dropLast(2)
            return (bound == "+Inf" ? .infinity : Double(bound) ?? .nan, count)
        }.sorted { $0.0 < $1.0 }
    }

    /// Prometheus's histogram_quantile over cumulative buckets (promql/quantile.go bucketQuantile).
    private func quantile(_ q: Double, _ buckets: [(bound: Double, count: Double)]) -> Double {
        let rank = q * buckets[buckets.count - 1].count
        let index = buckets.firstIndex { $0.count >= rank } ?? buckets.count - 1
        if index == buckets.count - 1 { return buckets[buckets.count - 2].bound }
        let start = index == 0 ? 0 : buckets[index - 1].bound
        let below = index == 0 ? 0 : buckets[index - 1].count
        return start + (buckets[index].bound - start) * (rank - below) / (buckets[index].count - below)
    }

    private func promtoolTest(
        rules: String, steps: [String: Double], ratio: Double, buckets: [(bound: Double, count: Double)]
    ) -> String {
        let series = steps.sorted { $0.key < $1.key }.map { name, step in
            "      - series: '\(name)'\n        values: '0+\(String(format: "%.9f", step))x30'\n"
        }.joined()
        // promtool compares values exactly: each recorded value is rounded to a nanosecond (or
        // a billionth) in the query, and the expected one as PromQL's round() rounds it.
        let labels = "{host=\"198.18.1.4\", ip=\"198.18.1.4\"}"
        func round(_ value: Double) -> Double { (value * (1.0 / 1e-9) + 0.5).rounded(.down) / (1.0 / 1e-9) }
        var expected = ""
        let quantiles = [(0.5, "q50"), (0.9, "q90"), (0.99, "q99")].map { q, name in
            ("instance:smokeping_response_duration_seconds:\(name)", quantile(q, buckets))
        }
        let records = [("instance:smokeping_probe_success:ratio1m", ratio)] + quantiles
        for (record, value) in records {
            expected += "      - expr: round(\(record), 1e-9)\n        eval_time: 2m\n"
                + "        exp_samples: [{labels: '\(labels)', value: \(round(value))}]\n"
        }
        return "rule_files: [\(rules)]\nevaluation_interval: 30s\ntests:\n  - interval: 5s\n    input_series:\n"
            + series + "    promql_expr_test:\n" + expected
    }
}

/// Bad smokeping input to the binary: one line on stderr, nothing on stdout, the documented
/// status (64 for the command line, 78 for the file).
extension ExporterStartTests {
    func testBadSmokepingInputIsOneLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-exporter-smokeping-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ text: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let unknown = try file("unknown.yml", "targets:\n- hosts: [198.51.100.1]\n  colour: blue\n")
        let fast = try file("fast.yml", "targets:\n- hosts: [198.51.100.1]\n  interval: 1ms\n")
        let large = try file("large.yml", "targets:\n- hosts: [198.51.100.1]\n  size: 65536\n")
        let many = (0..<100_000).map { "h\($0)" }
        let cases: [([String], Int32, String)] = [
            (["--smokeping", "--config.file=\(unknown)"], 78,
             "reach-exporter: \(unknown): line 3: targets.colour: unknown key (smokeping_prober has no such setting)"),
            (["--smokeping", "--config.file=\(fast)"], 78,
             "reach-exporter: \(fast): line 3: targets.interval: 1ms is shorter than 10ms, the shortest reach keeps"),
            (["--smokeping", "--config.file=\(large)"], 78,
             "reach-exporter: \(large): line 3: targets.size: 65536 is not within 24-65535"),
            (["--smokeping", "-i", "1ms", "198.51.100.1"], 64,
             "reach-exporter: --ping.interval: '1ms' is not a duration of at least 10ms (1s, 250ms)"),
            (["--smokeping", "-s", "70000", "198.51.100.1"], 64, "reach-exporter: --ping.size: '70000' is not a number from 24 to 65535"),
            (["--smokeping"] + many, 64, "reach-exporter: 100000 hosts, more than the 65000 one ICMP sequence space keeps apart"),
            (["198.51.100.1"], 64, "reach-exporter: unexpected argument '198.51.100.1'"),
        ]
        for (arguments, status, message) in cases {
            let result = try run(arguments)
            XCTAssertEqual(result.status, status, "\(arguments.prefix(3)): \(result)")
            XCTAssertEqual(result.stderrLines, [message], "\(arguments.prefix(3))")
            XCTAssertEqual(result.stdout, "", "\(arguments.prefix(3))")
        }
    }
}

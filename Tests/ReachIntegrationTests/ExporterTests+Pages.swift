#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// The pages a person reads: the recent probes beside blackbox_exporter's own page for the same
/// probes, and every page loaded in a real browser (Debian's Chromium, headless), hostile names
/// included.
extension ExporterTests {
    /// The rows of a page's probe table, newest first: module, target and result, the first three
    /// cells of each row, as blackbox_exporter 0.23's main.go writes them.
    private func recentProbeRows(_ html: String) -> [[String]] {
        let row = try! NSRegularExpression(pattern: "<tr[^>]*><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td>")
        return row.matches(in: html, range: NSRange(html.startIndex..., in: html)).map { match in
            (1...3).map { String(html[Range(match.range(at: $0), in: html)!]) }
        }
    }

    /// The same probes through both exporters, each keeping 3: the same rows in the same order,
    /// the failure that aged out of the last three kept below them (blackbox's history.go).
    func testRecentProbesAreListedAsBlackboxListsThem() throws {
        try Privilege.requireRootAndTools(["ip", "python3", "prometheus-blackbox-exporter"])
        let client = try lab.namespace("history")
        try client.ip("link", "set", "lo", "up")
        let configPath = try lab.script("blackbox.yml", "modules:\n  icmp:\n    prober: icmp\n  tcp_connect:\n    prober: tcp\n")
        let blackbox = try lab.launch(
            ["prometheus-blackbox-exporter", "--config.file=\(configPath)", "--web.listen-address=127.0.0.1:19115", "--history.limit=3"],
            in: client, label: "blackbox")
        try waitForPort(19115, in: client, server: blackbox)
        _ = try startExporter(["--config", configPath, "--history.limit", "3", "--allow", "127.0.0.0/8"], in: client)
        // Success, failure (nothing listens on port 1), success, success, failure, success, success.
        let probes = [("icmp", "127.0.0.1"), ("tcp_connect", "127.0.0.1:1"), ("icmp", "127.0.0.2"), ("icmp", "127.0.0.3"),
                      ("tcp_connect", "127.0.0.4:1"), ("icmp", "127.0.0.5"), ("icmp", "127.0.0.6")]
        for (module, target) in probes {
            for port in [19115, 10115] {
                XCTAssertEqual(try get("http://127.0.0.1:\(port)/probe?module=\(module)&target=\(target)", in: client).status, 200)
            }
        }
        let theirs = recentProbeRows(try get("http://127.0.0.1:19115/", in: client).body)
        let mine = recentProbeRows(try get("http://127.0.0.1:10115/", in: client).body)
        let failure = "<strong>Failure</strong>"
        XCTAssertEqual(
            theirs,
            [["icmp", "127.0.0.6", "Success"], ["icmp", "127.0.0.5", "Success"], ["tcp_connect", "127.0.0.4:1", failure],
             ["tcp_connect", "127.0.0.1:1", failure]])
        XCTAssertEqual(mine, theirs)
    }

    /// Chromium run headless in the namespace on `url`: the DOM it built, and any line its
    /// console printed (a script error, a refused resource).
    private func browse(_ url: String, in namespace: Namespace, screenshot: String? = nil, dark: Bool = false) throws
        -> (dom: String, console: [String])
    {
        var arguments = ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                         "--user-data-dir=\(lab.directory)/chromium", "--enable-logging=stderr", "--v=0", "--window-size=1100,700"]
        if dark { arguments.append("--blink-settings=preferredColorScheme=0") }
        arguments += screenshot.map { ["--screenshot=\($0)"] } ?? ["--dump-dom"]
        let result = try namespace.exec(arguments + [url])
        XCTAssertEqual(result.status, 0, "\(url): \(result)")
        let console = result.stderr.split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") }
        return (result.stdout, console)
    }

    /// A screenshot's size, distinct colours and background (Helpers/png-summary.py).
    private func pictureFacts(_ path: String) throws -> [String: Any] {
        let result = try Subprocess.run(["python3", try HelperScript.path("png-summary.py"), path])
        guard result.status == 0, let facts = try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: Any]
        else { throw HarnessError("png-summary \(path): \(result)") }
        return facts
    }

    /// `/`, a log, `/config` in a browser, under a route prefix: no console error, screenshots
    /// that are not blank in both themes, and a target holding a script shown as text in the DOM.
    func testPagesInABrowserShowHostileNamesAsText() throws {
        try Privilege.requireRootAndTools(["ip", "python3", "chromium"])
        let client = try lab.namespace("browser")
        try client.ip("link", "set", "lo", "up")
        let configPath = try lab.script(
            "pages.yml", "modules:\n  icmp:\n    prober: icmp\n  web:\n    prober: http\n    http:\n      basic_auth:\n"
                + "        username: prometheus\n        password: hunter2\n")
        _ = try startExporter(["--config", configPath, "--web.route-prefix", "/bb", "--allow", "127.0.0.0/8"], in: client)
        let base = "http://127.0.0.1:10115/bb"
        let hostile = "http://127.0.0.1:1/<script>document.title='owned'</script>\"'&"
        let escaped = hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        XCTAssertEqual(try get("\(base)/probe?module=web&target=\(escaped)", in: client).status, 200)
        XCTAssertEqual(try get("\(base)/probe?module=icmp&target=127.0.0.1", in: client).status, 200)

        let page = try browse("\(base)/", in: client)
        XCTAssertEqual(page.console, [], page.dom)
        XCTAssertTrue(page.dom.contains("<title>reach-exporter</title>"), page.dom)
        XCTAssertFalse(page.dom.contains("<script"), page.dom)
        XCTAssertTrue(page.dom.contains("http://127.0.0.1:1/&lt;script&gt;document.title='owned'&lt;/script&gt;\"'&amp;"), page.dom)
        XCTAssertTrue(page.dom.contains("<a href=\"logs?id=0\">Logs</a>"), page.dom)

        let log = try browse("\(base)/logs?id=0", in: client)
        XCTAssertEqual(log.console, [])
        XCTAssertTrue(log.dom.contains("Logs for the probe:"), log.dom)
        XCTAssertTrue(log.dom.contains("level=error msg=\"Probe failed\""), log.dom)
        XCTAssertFalse(log.dom.contains("<script"), log.dom)

        let config = try browse("\(base)/config", in: client)
        XCTAssertEqual(config.console, [])
        XCTAssertTrue(config.dom.contains("password: &lt;secret&gt;"), config.dom)
        XCTAssertFalse(config.dom.contains("hunter2"), config.dom)

        for (path, dark) in [("", false), ("", true), ("logs?id=0", false), ("config", false)] {
            let picture = "\(lab.directory)/page-\(path.isEmpty ? "index" : path.prefix(4))-\(dark).png"
            _ = try browse("\(base)/\(path)", in: client, screenshot: picture, dark: dark)
            let facts = try pictureFacts(picture)
            XCTAssertGreaterThan(facts["colours"] as? Int ?? 0, 10, "\(path) is blank: \(facts)")
            if path.isEmpty { XCTAssertEqual(facts["background"] as? String, dark ? "#161616" : "#ffffff", "\(facts)") }
        }
    }

    /// What a page cannot answer: one line and its status, and the exporter serves on.
    func testPagesRefuseBadRequestsInOneLine() throws {
        try Privilege.requireRootAndTools(["ip", "python3"])
        let client = try lab.namespace("pagebad")
        try client.ip("link", "set", "lo", "up")
        let exporter = try startExporter(["--allow", "127.0.0.0/8"], in: client)
        let base = "http://127.0.0.1:10115"
        for (path, status, text) in [("/logs?id=0", 404, "Probe id not found\n"), ("/logs?id=x", 400, "Invalid probe id\n"),
                                     ("/logs", 400, "Invalid probe id\n"), ("/logs?id=%ZZ", 400, "Malformed query string\n")] {
            let answer = try get("\(base)\(path)", in: client)
            XCTAssertEqual(answer.status, status, path)
            XCTAssertEqual(answer.body, text, path)
        }
        let empty = try get("\(base)/", in: client)
        XCTAssertEqual(empty.status, 200)
        XCTAssertTrue(empty.body.contains("No probe yet: none has run since the exporter started."), empty.body)
        XCTAssertFalse(Subprocess.hasExited(exporter.pid), exporter.log)
    }

    /// Each minute's sent and answered counts of a graph, summed (the SVG's data- attributes).
    private func graphTotals(_ svg: String) -> (sent: Int, received: Int, steps: Int) {
        let step = try! NSRegularExpression(pattern: "data-sent=\"([0-9]+)\" data-received=\"([0-9]+)\"")
        var totals = (sent: 0, received: 0, steps: 0)
        for match in step.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)) {
            totals.sent += Int(svg[Range(match.range(at: 1), in: svg)!])!
            totals.received += Int(svg[Range(match.range(at: 2), in: svg)!])!
            totals.steps += 1
        }
        return totals
    }

    /// A continuous target's graph against its series: what the graph counts between two reads
    /// brackets what /metrics counted in between; the page's row links it, and a browser draws
    /// both with no console line; an unknown target or a range out of bounds is one line.
    func testTheGraphCountsWhatTheSeriesCount() throws {
        try Privilege.requireRootAndTools(["ip", "python3", "chromium"])
        let client = try lab.namespace("graph")
        try client.ip("link", "set", "lo", "up")
        let file = try lab.script("both.yml", "modules:\n  icmp:\n    prober: icmp\ntargets:\n- hosts: [127.0.0.1]\n  interval: 100ms\n")
        _ = try startExporter(["--config.file=\(file)"], in: client)
        let base = "http://127.0.0.1:10115"
        let graph = "\(base)/graph?host=127.0.0.1&ip=127.0.0.1"
        let labels = "{host=\"127.0.0.1\",ip=\"127.0.0.1\"}"
        var before = (sent: 0, received: 0, steps: 0)
        let deadline = Date().addingTimeInterval(15)
        while before.received < 10 && Date() < deadline {
            usleep(200_000)
            let answer = try get(graph, in: client)
            if answer.status == 200 { before = graphTotals(answer.body) }
        }
        XCTAssertGreaterThanOrEqual(before.received, 10, "no answers counted in 15 s")
        let series = samples(try get("\(base)/metrics", in: client).body)
        let after = graphTotals(try get(graph, in: client).body)
        let requests = try XCTUnwrap(series["smokeping_requests_total\(labels)"])
        let answers = try XCTUnwrap(series["smokeping_response_duration_seconds_count\(labels)"])
        XCTAssertTrue(Double(before.sent) <= requests && requests <= Double(after.sent), "\(before) \(requests) \(after)")
        XCTAssertTrue(Double(before.received) <= answers && answers <= Double(after.received), "\(before) \(answers) \(after)")

        let page = try browse("\(base)/", in: client)
        XCTAssertEqual(page.console, [], page.dom)
        XCTAssertTrue(page.dom.contains("<h2>Continuous Targets</h2>"), page.dom)
        XCTAssertTrue(page.dom.contains("<img src=\"graph?host=127.0.0.1&amp;ip=127.0.0.1&amp;size=small\""), page.dom)
        let drawn = try browse(graph, in: client)
        XCTAssertEqual(drawn.console, [])
        XCTAssertTrue(drawn.dom.contains("round trip to 127.0.0.1 (127.0.0.1), last 1 h"), drawn.dom)
        let picture = "\(lab.directory)/graph.png"
        _ = try browse(graph, in: client, screenshot: picture, dark: true)
        let facts = try pictureFacts(picture)
        XCTAssertGreaterThan(facts["colours"] as? Int ?? 0, 10, "\(facts)")

        for (url, status, text) in [("\(base)/graph?host=nosuch&ip=127.0.0.1", 404, "no continuous target host nosuch ip 127.0.0.1\n"),
                                    ("\(graph)&range=2h", 400, "range '2h' is not a duration from 1m0s to 1h0m0s\n")] {
            let answer = try get(url, in: client)
            XCTAssertEqual(answer.status, status, url)
            XCTAssertEqual(answer.body, text, url)
        }
    }
}

import ReachCore
import ReachSystem
import XCTest

@testable import ReachExporter

/// The recent probes as blackbox_exporter 0.23's `prober/history.go` keeps them, and the pages
/// that show them.
final class ProbeHistoryTests: XCTestCase {
    private func request(module name: String = "icmp", target: String) throws -> ExporterRouter.ProbeRequest {
        let module = try XCTUnwrap(ExporterModule.defaults.first { $0.prober == .icmp })
        var named = module
        named.name = name
        return ExporterRouter.ProbeRequest(module: named, target: ProbeTarget(host: target), timeout: .seconds(1), targetText: target)
    }

    private func measurement(success: Bool) -> ProbeMeasurement {
        var measurement = ProbeMeasurement(detail: .icmp(.init()))
        measurement.duration = TimeSpan(nanoseconds: 1_500_000)
        if success { measurement.success = true } else { measurement.fail(.timedOut) }
        return measurement
    }

    /// Limit 2 over success, failure, success, success, failure, success: the last two, and
    /// the failure that aged out of them kept beside them (history.go's preservedFailedResults).
    func testFailuresOutliveTheLimitAsBlackboxKeepsThem() throws {
        let history = ProbeHistory(limit: 2)
        for (index, success) in [true, false, true, true, false, true].enumerated() {
            history.add(try request(target: "198.51.100.\(index)"), measurement(success: success), started: RealtimeInstant(nanoseconds: 0))
        }
        XCTAssertEqual(history.newestFirst.map(\.id), [5, 4, 1])
        XCTAssertEqual(history.newestFirst.map(\.target), ["198.51.100.5", "198.51.100.4", "198.51.100.1"])
        XCTAssertEqual(history.newestFirst.map(\.success), [true, false, false])
        XCTAssertNil(history.entry(id: 0))
        XCTAssertEqual(history.entry(id: 1)?.target, "198.51.100.1")
        XCTAssertNil(history.entry(id: 6))
    }

    func testLimitZeroKeepsNothing() throws {
        let history = ProbeHistory(limit: 0)
        history.add(try request(target: "198.51.100.1"), measurement(success: false), started: RealtimeInstant(nanoseconds: 0))
        XCTAssertTrue(history.newestFirst.isEmpty)
        XCTAssertNil(history.entry(id: 0))
    }

    /// A kept probe's log is the debug output the probe would have answered.
    func testTheLogIsTheDebugOutput() throws {
        let history = ProbeHistory(limit: 5)
        let probe = try request(target: "198.51.100.9")
        let started = RealtimeInstant(nanoseconds: 1_700_000_000_000_000_000)
        history.add(probe, measurement(success: false), started: started)
        let entry = try XCTUnwrap(history.entry(id: 0))
        XCTAssertEqual(
            entry.log, ProbeDebugOutput.render(probe, target: "198.51.100.9", measurement: measurement(success: false), started: started))
    }

    /// Names from requests and the configuration are text on the page, never markup.
    func testTheStatusPageEscapesWhatItShows() throws {
        let history = ProbeHistory(limit: 5)
        let hostile = "<script>alert('x')</script>\"&"
        history.add(try request(module: "m<b>", target: hostile), measurement(success: false), started: RealtimeInstant(nanoseconds: 0))
        history.add(try request(target: "198.51.100.2"), measurement(success: true), started: RealtimeInstant(nanoseconds: 0))
        let page = String(decoding: StatusPage.render(recent: history.newestFirst, historyLimit: 5), as: UTF8.self)
        XCTAssertFalse(page.contains("<script"), page)
        XCTAssertFalse(page.contains("m<b>"), page)
        XCTAssertTrue(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&#34;&amp;"), page)
        XCTAssertTrue(page.contains("<td>m&lt;b&gt;</td>"), page)
        XCTAssertTrue(page.contains("<td><strong>Failure</strong></td><td>timed_out</td><td class=\"number\">1.500 ms</td>"), page)
        XCTAssertTrue(page.contains("<a href=\"logs?id=0\">Logs</a>"), page)
        // The newest probe first, and the debug link for it, its values percent-encoded.
        let (newest, older) = (try XCTUnwrap(page.firstRange(of: "198.51.100.2")), try XCTUnwrap(page.firstRange(of: "&lt;script")))
        XCTAssertLessThan(newest.lowerBound, older.lowerBound)
        XCTAssertTrue(page.contains("<a href=\"probe?target=198.51.100.2&amp;module=icmp&amp;debug=true\">"), page)
        let empty = String(decoding: StatusPage.render(recent: [], historyLimit: 0), as: UTF8.self)
        XCTAssertTrue(empty.contains("No probe yet: none are kept (--history.limit 0)."), empty)
    }

    func testHTMLTextAsGoEscapes() {
        XCTAssertEqual(HTMLText.escaped("a<b>&'\"c"), "a&lt;b&gt;&amp;&#39;&#34;c")
        XCTAssertEqual(HTMLText.escaped("bell\u{07}é"), "bell\u{FFFD}é")
        XCTAssertEqual(HTMLText.queryValue("http://a b/é?x=1&y"), "http%3A%2F%2Fa+b%2F%C3%A9%3Fx%3D1%26y")
    }

    /// `/config`: the modules as the debug output prints them, credentials as `<secret>`.
    func testTheConfigurationPageHidesSecrets() throws {
        let modules = try ExporterConfiguration.parse("""
            modules:
              web:
                prober: http
                http:
                  basic_auth:
                    username: prometheus
                    password: hunter2
              token:
                prober: http
                http:
                  oauth2:
                    client_id: reach
                    client_secret: s3cret-value
                    token_url: http://auth.lab/token
              ping:
                prober: icmp
            """)
        let page = String(decoding: ConfigurationPage.render(modules), as: UTF8.self)
        XCTAssertFalse(page.contains("hunter2"), page)
        XCTAssertFalse(page.contains("s3cret-value"), page)
        XCTAssertTrue(page.hasPrefix("modules:\n    web:\n        prober: http\n        http:\n"), page)
        XCTAssertTrue(
            page.contains("\n            basic_auth:\n                username: prometheus\n                password: <secret>\n"), page)
        XCTAssertTrue(
            page.contains(
                "\n            oauth2:\n                client_id: reach\n                client_secret: <secret>\n"
                    + "                token_url: \"http://auth.lab/token\"\n"), page)
        XCTAssertTrue(page.contains("\n    ping:\n        prober: icmp\n"), page)
    }
}

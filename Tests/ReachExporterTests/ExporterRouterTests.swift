import XCTest

@testable import ReachExporter
import ReachSystem

final class ExporterRouterTests: XCTestCase {
    private let router = ExporterRouter(
        modules: ExporterModule.defaults + [ExporterModule(name: "icmp_fast", prober: .icmp, timeout: .seconds(2))],
        allow: AllowList(entries: [.network(try! .parse("198.51.100.0"), prefixLength: 24), .name("web.lab")]))

    private func route(_ uri: String, method: String = "GET", header: String? = nil) -> ExporterRouter.Route {
        router.route(method: method, uri: uri, scrapeTimeout: header)
    }

    func testProbeWithBlackboxTimeouts() {
        guard case .probe(let probe) = route("/probe?target=198.51.100.7&module=icmp", header: "10") else {
            return XCTFail("not a probe")
        }
        XCTAssertEqual(probe.module.name, "icmp")
        XCTAssertEqual(probe.target, ProbeTarget(host: "198.51.100.7"))
        XCTAssertEqual(probe.timeout, .milliseconds(9500))
        // No header: 120 s less the offset; the module's own when shorter; &timeout= first.
        guard case .probe(let plain) = route("/probe?target=198.51.100.7&module=icmp") else { return XCTFail() }
        XCTAssertEqual(plain.timeout, .milliseconds(119_500))
        guard case .probe(let own) = route("/probe?target=198.51.100.7&module=icmp_fast", header: "10") else { return XCTFail() }
        XCTAssertEqual(own.timeout, .seconds(2))
        guard case .probe(let asked) = route("/probe?target=198.51.100.7&module=icmp&timeout=1.5", header: "10") else { return XCTFail() }
        XCTAssertEqual(asked.timeout, .seconds(1))
    }

    /// blackbox_exporter's management endpoints, with its answers (main.go).
    func testHealthAndReload() {
        XCTAssertEqual(route("/-/healthy"), .reply(status: 200, text: "Healthy"))
        XCTAssertEqual(route("/-/healthy", method: "HEAD"), .reply(status: 200, text: "Healthy"))
        XCTAssertEqual(route("/-/healthy", method: "POST"), .reply(status: 405, text: "Method POST not allowed"))
        XCTAssertEqual(route("/-/reload", method: "POST"), .reload)
        XCTAssertEqual(route("/-/reload"), .reply(status: 405, text: "This endpoint requires a POST request."))
    }

    func testHugeTimeoutsAreBounded() {
        for header in ["1e300", "99999999999999999999"] {
            guard case .probe(let probe) = route("/probe?target=198.51.100.7&module=icmp", header: header) else { return XCTFail(header) }
            XCTAssertEqual(probe.timeout, ExporterRouter.longestProbe, header)
        }
        XCTAssertEqual(route("/probe?target=198.51.100.7&module=icmp", header: "inf"),
                       .reply(status: 400, text: "Failed to parse timeout: 'inf'"))
        let slow = ExporterRouter(modules: [ExporterModule(name: "slow", prober: .tcp, timeout: .maximum)], allow: router.allow)
        guard case .probe(let probe) = slow.route(method: "GET", uri: "/probe?module=slow&target=198.51.100.7:1", scrapeTimeout: "1e300")
        else { return XCTFail() }
        XCTAssertEqual(probe.timeout, ExporterRouter.longestProbe)
    }

    func testModuleDefaultsToHTTP2xxAsBlackboxDoes() {
        guard case .probe(let probe) = route("/probe?target=http%3A%2F%2Fweb.lab%2Fx") else { return XCTFail("not a probe") }
        XCTAssertEqual(probe.module.name, "http_2xx")
        XCTAssertEqual(probe.target, ProbeTarget(host: "web.lab", port: 80, path: "/x"))
    }

    func testRefusals() {
        XCTAssertEqual(route("/probe?target=198.51.100.7&module=nope"), .reply(status: 400, text: "Unknown module \"nope\""))
        XCTAssertEqual(route("/probe?module=icmp"), .reply(status: 400, text: "Target parameter is missing"))
        XCTAssertEqual(route("/probe?target=203.0.113.1&module=icmp"), .reply(status: 403, text: "target 203.0.113.1 is outside --allow"))
        XCTAssertEqual(
            route("/probe?target=other.lab:80&module=tcp_connect"), .reply(status: 403, text: "target other.lab is outside --allow"))
        XCTAssertEqual(route("/probe?target=198.51.100.7&module=icmp", header: "soon"),
                       .reply(status: 400, text: "Failed to parse timeout: 'soon'"))
        XCTAssertEqual(route("/probe?target=%ZZ"), .reply(status: 400, text: "Malformed query string"))
        XCTAssertEqual(route("/probe?target=%FF%FE"), .reply(status: 400, text: "Malformed query string"))
        XCTAssertEqual(route("/nothing"), .reply(status: 404, text: "Not found: /nothing"))
        XCTAssertEqual(route("/metrics", method: "POST"), .reply(status: 405, text: "Method POST not allowed"))
        XCTAssertEqual(route("/metrics"), .metrics)
        XCTAssertEqual(route("/metrics?x=1"), .metrics)
    }

    /// Every request target of one to three pieces that matter (escapes, brackets, colons,
    /// odd numbers), with a timeout header picked by its index: each gets an answer, none
    /// traps, and a refusal is one printable line.
    func testEveryShortRequestIsAnsweredWithoutTrapping() {
        let pieces = ["/probe", "/metrics", "/logs", "id=", "/graph", "host=", "ip=", "range=", "?", "&", "=", "target", "module=",
                      "timeout=", "icmp", "tcp_connect", "http_2xx", "route", "%", "%2", "%41", "%FF", "%0A", "[", "]", ":", "::1",
                      "198.51.100.7", "web.lab", "http://",
                      "https://", "/", "65535", "0", "-1", "1e300", "nan", "+", "..", "@", "#", "\u{7F}", "é",
                      String(repeating: "a", count: 300)]
        var count = 0
        var sequences: [[String]] = pieces.map { [$0] }
        var longest = sequences
        for _ in 2...3 {
            longest = longest.flatMap { prefix in pieces.map { prefix + [$0] } }
            sequences += longest
        }
        for words in sequences {
            let uri = words.joined()
            count += 1
            let header = count % 3 == 0 ? nil : pieces[count % pieces.count]
            switch router.route(method: "GET", uri: uri, scrapeTimeout: header) {
            case .probe(let probe):
                XCTAssertTrue(probe.timeout > .zero && probe.timeout <= ExporterRouter.longestProbe, uri)
                XCTAssertNil(router.allow.refusal(of: probe.target.host), uri)
            case .reply(let status, let text):
                XCTAssertTrue([200, 400, 403, 404].contains(status), "\(status) for \(uri)")
                XCTAssertTrue(text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, "\(uri): \(text)")
            case .metrics:
                break
            case .page(let page):
                if case .log(let id) = page { XCTAssertGreaterThanOrEqual(id, 0, uri) }
            case .reload:
                XCTFail("a GET reloads: \(uri)")
            }
        }
        XCTAssertEqual(count, pieces.count + pieces.count * pieces.count + pieces.count * pieces.count * pieces.count)
    }

    /// blackbox_exporter's pages; a log's id must be a number (blackbox answers 500, reach 400).
    func testPages() {
        XCTAssertEqual(route("/"), .page(.status))
        XCTAssertEqual(route("/", method: "HEAD"), .page(.status))
        XCTAssertEqual(route("/config"), .page(.configuration))
        XCTAssertEqual(route("/logs?id=7"), .page(.log(id: 7)))
        XCTAssertEqual(route("/logs?id=7&id=8"), .page(.log(id: 8)))
        for bad in ["/logs", "/logs?id=", "/logs?id=x", "/logs?id=-1", "/logs?id=99999999999999999999999"] {
            XCTAssertEqual(route(bad), .reply(status: 400, text: "Invalid probe id"), bad)
        }
        XCTAssertEqual(route("/config", method: "POST"), .reply(status: 405, text: "Method POST not allowed"))
    }

    /// A graph: an hour unless `range` says, a minute to an hour; full size unless `size=small`.
    func testGraphs() {
        let far = ContinuousTimelines.Target(host: "far.lab", ip: "198.51.100.7")
        XCTAssertEqual(route("/graph?host=far.lab&ip=198.51.100.7"), .page(.graph(far, range: .seconds(3600), size: .full)))
        XCTAssertEqual(
            route("/graph?host=far.lab&ip=198.51.100.7&range=15m&size=small"), .page(.graph(far, range: .seconds(900), size: .small)))
        XCTAssertEqual(route("/graph?host=far.lab"), .reply(status: 400, text: "host and ip are needed"))
        for range in ["30s", "2h", "-1h", "soon", "1e9h"] {
            XCTAssertEqual(
                route("/graph?host=far.lab&ip=198.51.100.7&range=\(range)"),
                .reply(status: 400, text: "range '\(range)' is not a duration from 1m0s to 1h0m0s"), range)
        }
        XCTAssertEqual(
            route("/graph?host=far.lab&ip=198.51.100.7&size=huge"), .reply(status: 400, text: "size 'huge' is neither full nor small"))
    }

    func testReasonsStayOneLine() {
        guard case .reply(_, let text) = route("/probe?target=x&module=a%0Ab%0D" + String(repeating: "m", count: 300)) else {
            return XCTFail()
        }
        XCTAssertFalse(text.contains("\n"))
        XCTAssertLessThanOrEqual(text.count, 230)
    }

    func testDebugAndTimeoutOffset() {
        guard case .probe(let probe) = route("/probe?target=198.51.100.7&module=icmp&debug=true", header: "10") else {
            return XCTFail("not a probe")
        }
        XCTAssertTrue(probe.debug)
        XCTAssertEqual(probe.targetText, "198.51.100.7")
        guard case .probe(let plain) = route("/probe?target=198.51.100.7&module=icmp&debug=1") else { return XCTFail() }
        XCTAssertFalse(plain.debug, "blackbox_exporter takes debug=true alone")
        var offset = router
        offset.timeoutOffset = .milliseconds(100)
        let uri = "/probe?target=198.51.100.7&module=icmp"
        guard case .probe(let short) = offset.route(method: "GET", uri: uri, scrapeTimeout: "10") else {
            return XCTFail()
        }
        XCTAssertEqual(short.timeout, .milliseconds(9900))
    }
}

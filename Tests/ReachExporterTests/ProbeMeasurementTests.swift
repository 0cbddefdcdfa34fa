import ReachCore
import ReachSystem
import XCTest

@testable import ReachExporter

/// The metrics each module answers with: blackbox_exporter 0.23's names and meanings.
final class ProbeMeasurementTests: XCTestCase {
    private func names(_ samples: [MetricSample]) -> Set<String> { Set(samples.map(\.name)) }

    func testICMPAsBlackbox() throws {
        var detail = ProbeMeasurement.ICMP()
        detail.setupSeconds = 0.001
        detail.rttSeconds = 0.002
        detail.replyHopLimit = 64
        var measurement = ProbeMeasurement(detail: .icmp(detail))
        measurement.success = true
        measurement.duration = .milliseconds(4)
        measurement.lookup = .nanoseconds(500_000)
        measurement.address = try IPAddress.parse("2001:db8::7")
        let samples = measurement.samples
        XCTAssertEqual(names(samples), [
            "probe_icmp_duration_seconds", "probe_ip_protocol", "probe_dns_lookup_time_seconds", "probe_ip_addr_hash",
            "probe_icmp_reply_hop_limit", "probe_success", "probe_duration_seconds",
        ])
        XCTAssertEqual(MetricSample.value(of: "probe_icmp_duration_seconds", in: samples, labels: [.init("phase", "rtt")]), 0.002)
        XCTAssertEqual(MetricSample.value(of: "probe_icmp_duration_seconds", in: samples, labels: [.init("phase", "resolve")]), 0.0005)
        XCTAssertEqual(MetricSample.value(of: "probe_ip_protocol", in: samples), 6)
        XCTAssertEqual(MetricSample.value(of: "probe_success", in: samples), 1)
        XCTAssertEqual(MetricSample.value(of: "probe_icmp_reply_hop_limit", in: samples), 64)
    }

    func testAFailedResolutionLeavesProtocolZero() {
        let samples = ProbeMeasurement(detail: .tcp(.init())).samples
        XCTAssertEqual(MetricSample.value(of: "probe_ip_protocol", in: samples), 0)
        XCTAssertEqual(MetricSample.value(of: "probe_success", in: samples), 0)
        XCTAssertEqual(MetricSample.value(of: "probe_failed_due_to_regex", in: samples), 0)
        // No reply: no hop limit, as blackbox_exporter leaves it out.
        XCTAssertNil(MetricSample.value(of: "probe_icmp_reply_hop_limit", in: ProbeMeasurement(detail: .icmp(.init())).samples))
    }

    /// blackbox_exporter's ipHash: FNV-1a over the 4 or 16 bytes (Go's hash/fnv New32a).
    func testAddressHashIsFNV1a() throws {
        XCTAssertEqual(ProbeMeasurement.addressHash(try IPAddress.parse("127.0.0.1")), 3_668_918_509)
        XCTAssertEqual(ProbeMeasurement.addressHash(try IPAddress.parse("0.0.0.0")), 1_268_118_805)
    }

    func testHTTPPhasesAndStatus() {
        var http = ProbeMeasurement.HTTP()
        http.statusCode = 204
        http.contentLength = -1
        http.version = 1.1
        let samples = ProbeMeasurement(detail: .http(http)).samples
        XCTAssertEqual(samples.filter { $0.name == "probe_http_duration_seconds" }.map { $0.labels[0].value },
                       ["resolve", "connect", "tls", "processing", "transfer"])
        XCTAssertEqual(MetricSample.value(of: "probe_http_status_code", in: samples), 204)
        XCTAssertEqual(MetricSample.value(of: "probe_http_content_length", in: samples), -1)
        XCTAssertEqual(MetricSample.value(of: "probe_http_version", in: samples), 1.1)
        // Only a response with a readable Last-Modified has the series.
        XCTAssertNil(MetricSample.value(of: "probe_http_last_modified_timestamp_seconds", in: samples))
        http.lastModified = 784_111_777
        let modified = ProbeMeasurement(detail: .http(http)).samples
        XCTAssertEqual(MetricSample.value(of: "probe_http_last_modified_timestamp_seconds", in: modified), 784_111_777)
    }

    func testAProxyThatResolvesLeavesNoResolution() throws {
        var http = ProbeMeasurement.HTTP()
        http.resolvedTarget = false
        var measurement = ProbeMeasurement(detail: .http(http))
        // The proxy's own address and lookup: not the target's, so not reported.
        measurement.address = try IPAddress.parse("198.18.0.1")
        measurement.lookup = .milliseconds(1)
        let samples = measurement.samples
        for name in ["probe_ip_protocol", "probe_ip_addr_hash", "probe_dns_lookup_time_seconds"] {
            XCTAssertFalse(names(samples).contains(name), name)
        }
        XCTAssertNil(MetricSample.value(of: "probe_http_duration_seconds", in: samples, labels: [.init("phase", "resolve")]))
        XCTAssertEqual(MetricSample.value(of: "probe_http_duration_seconds", in: samples, labels: [.init("phase", "connect")]), 0)
        XCTAssertEqual(MetricSample.value(of: "probe_http_status_code", in: samples), 0)
    }

    func testRouteCarriesTheKernelsVerdict() throws {
        let path = PathReport(
            destination: try IPAddress.parse("198.51.100.7"), flags: [], reason: .noCarrier,
            link: LinkReport(name: "wwan0", index: 3, kind: .cellular, operState: .lowerLayerDown),
            gateway: try IPAddress.parse("198.51.100.1"))
        let samples = ProbeMeasurement(detail: .route(path)).samples
        XCTAssertEqual(MetricSample.value(of: "reach_route_reachable", in: samples), 0)
        let info = try XCTUnwrap(samples.first { $0.name == "reach_route_info" })
        XCTAssertEqual(info.labels, [.init("reason", "no_carrier"), .init("link", "wwan0"), .init("kind", "cellular"),
                                     .init("gateway", "198.51.100.1"), .init("family", "ipv4"), .init("generation", "")])
        // A modem claims the link: its generation, as reach names it.
        let lte = PathReport(
            destination: try IPAddress.parse("198.51.100.7"), flags: [.reachable], reason: nil,
            link: LinkReport(name: "wwan0", index: 3, kind: .cellular, operState: .up,
                             cellular: CellularFacts(technologies: AccessTechnologies(rawValue: 1 << 14))))
        let lteInfo = ProbeMeasurement(detail: .route(lte)).samples.first { $0.name == "reach_route_info" }
        XCTAssertEqual(lteInfo?.labels.last, .init("generation", "4g"))
        let unresolved = ProbeMeasurement(detail: .route(nil)).samples.first { $0.name == "reach_route_info" }
        XCTAssertEqual(unresolved?.labels.first, .init("reason", "name_not_resolved"))
    }

    /// A route that refused the probe before any packet left is named, with reach addr's reason.
    func testARouteRefusalIsOneSeriesNamingItsType() {
        var tcp = ProbeMeasurement(detail: .tcp(.init()))
        XCTAssertFalse(names(tcp.samples).contains("reach_probe_route_refused"))
        tcp.routeRefusal = UnreachableReason(routeRefusal: .invalidArgument)
        let text = String(decoding: Exposition.render(tcp.samples), as: UTF8.self)
        let lines = text.split(separator: "\n").filter { $0.contains("reach_probe_route_refused") }
        XCTAssertEqual(lines, [
            "# HELP reach_probe_route_refused 1: the kernel refused the destination by its route (the reason) before any packet left",
            "# TYPE reach_probe_route_refused gauge", #"reach_probe_route_refused{reason="blackhole_route"} 1.0"#,
        ])
        XCTAssertTrue(text.contains("probe_success 0"), text)
        var icmp = ProbeMeasurement(detail: .icmp(.init()))
        icmp.routeRefusal = UnreachableReason(routeRefusal: .permissionDenied)
        XCTAssertEqual(icmp.samples.filter { $0.name == "reach_probe_route_refused" }.map(\.labels),
                       [[.init("reason", "prohibited_route")]])
    }

    /// A failed probe says why, as one series; a passed one has none, whatever was noted on the way.
    func testAFailedProbeNamesItsReason() {
        var tcp = ProbeMeasurement(detail: .tcp(.init()))
        tcp.fail(.connect(TCPProbe.Failure(.refused, detail: "connection refused by 192.0.2.1 port 80")))
        let text = String(decoding: Exposition.render(tcp.samples), as: UTF8.self)
        XCTAssertEqual(text.split(separator: "\n").filter { $0.contains("reach_probe_failure_info") }, [
            "# HELP reach_probe_failure_info Why the probe failed, from reach-exporter(1)'s list of failure reasons",
            "# TYPE reach_probe_failure_info gauge", #"reach_probe_failure_info{reason="connection_refused"} 1.0"#,
        ])
        let refused = TCPProbe.Failure(.routeRefused, detail: "", routeRefusal: .blackholeRoute)
        XCTAssertEqual(ProbeFailureReason.connect(refused), .route(.blackholeRoute))
        XCTAssertEqual(ProbeFailureReason.connect(refused).rawValue, "blackhole_route")
        XCTAssertEqual(ProbeFailureReason.connect(TCPProbe.Failure(.timedOut, detail: "")), .timedOut)
        XCTAssertEqual(ProbeFailureReason.connect(TCPProbe.Failure(.unreachable, detail: "")), .hostUnreachable)
        var http = ProbeMeasurement(detail: .http(.init()))
        http.failure = .statusCode
        http.success = true
        XCTAssertFalse(names(http.samples).contains("reach_probe_failure_info"))
    }

    func testRedirectTargets() {
        let current = ProbeTarget(host: "web.lab", port: 8080, path: "/a/b?q=1")
        let cases: [(String, ProbeTarget?)] = [
            ("/c", ProbeTarget(host: "web.lab", port: 8080, path: "/c")),
            ("c/d", ProbeTarget(host: "web.lab", port: 8080, path: "/a/c/d")),
            ("?x", ProbeTarget(host: "web.lab", port: 8080, path: "/a/?x")),
            ("http://other.lab/z#top", ProbeTarget(host: "other.lab", port: 80, path: "/z")),
            ("//other.lab:81/", ProbeTarget(host: "other.lab", port: 81, path: "/")),
            ("HTTP://[2001:db8::1]/", ProbeTarget(host: "2001:db8::1", port: 80, path: "/")),
            ("https://web.lab/", ProbeTarget(host: "web.lab", port: 443, path: "/", secure: true)), ("ftp://web.lab/", nil),
            ("/a\u{7F}", nil),
        ]
        for (location, expected) in cases {
            XCTAssertEqual(ExporterProber.redirectTarget(location, from: current), expected, location)
        }
        XCTAssertEqual(ExporterProber.redirectTarget("x", from: ProbeTarget(host: "web.lab", port: 80, path: "/")),
                       ProbeTarget(host: "web.lab", port: 80, path: "/x"))
    }

    func testChooseProtocolAsBlackbox() throws {
        let v4 = try IPAddress.parse("198.51.100.7")
        let v6 = try IPAddress.parse("2001:db8::7")
        XCTAssertEqual(ExporterProber.choose(from: [v4, v6], preferred: .ipv6, fallback: true), v6)
        XCTAssertEqual(ExporterProber.choose(from: [v4], preferred: .ipv6, fallback: true), v4)
        XCTAssertNil(ExporterProber.choose(from: [v4], preferred: .ipv6, fallback: false))
        XCTAssertEqual(ExporterProber.choose(from: [v6, v4], preferred: .ipv4, fallback: false), v4)
    }
}

import ReachSystem
import XCTest

@testable import ReachCore

final class InternetMetricsTests: XCTestCase {
    private func wall(_ milliseconds: Int64) -> RealtimeInstant { RealtimeInstant(nanoseconds: milliseconds * 1_000_000) }

    private func report(_ v4: (Bool, String, String?, UnreachableReason?), v6 reachable6: Bool = false) throws -> ReachabilityReport {
        let (reachable, link, gateway, reason) = v4
        return ReachabilityReport(subject: .internet, paths: [
            PathReport(
                destination: ReachabilityEvaluator.internetDestination(.ipv4), flags: reachable ? [.reachable] : [], reason: reason,
                link: LinkReport(name: link, index: 2, kind: link.hasPrefix("wl") ? .wifi : .ethernet, operState: .up),
                gateway: try gateway.map { try IPAddress.parse($0) }),
            PathReport(destination: ReachabilityEvaluator.internetDestination(.ipv6), flags: [], reason: reachable6 ? nil : .noRoute),
        ])
    }

    func testFirstStateThenTransitions() throws {
        var metrics = InternetMetrics()
        metrics.observe(try report((true, "eth0", "198.51.100.1", nil)), at: wall(1_000_000))
        XCTAssertEqual(metrics.ipv4?.transitions, 0)
        XCTAssertEqual(metrics.ipv4?.lastTransition, wall(1_000_000))
        XCTAssertEqual(metrics.ipv6?.reason, "no_route")

        // The link goes down: one transition, on IPv4 only.
        metrics.observe(try report((false, "eth0", "198.51.100.1", .noCarrier)), at: wall(2_500_000))
        XCTAssertEqual(metrics.ipv4?.transitions, 1)
        XCTAssertEqual(metrics.ipv4?.lastTransition, wall(2_500_000))
        XCTAssertEqual(metrics.ipv6?.transitions, 0)
        XCTAssertEqual(metrics.ipv6?.lastTransition, wall(1_000_000))

        // A reason alone is no transition (as `watch` prints none).
        metrics.observe(try report((false, "eth0", "198.51.100.1", .linkDown)), at: wall(3_000_000))
        XCTAssertEqual(metrics.ipv4?.transitions, 1)
        XCTAssertEqual(metrics.ipv4?.reason, "link_down")

        // Another link and gateway.
        metrics.observe(try report((true, "wlan0", "203.0.113.1", nil)), at: wall(4_000_000))
        XCTAssertEqual(metrics.ipv4?.transitions, 2)
        XCTAssertEqual(metrics.ipv4?.kind, "wifi")
    }

    func testSamples() throws {
        var metrics = InternetMetrics()
        metrics.observe(try report((true, "eth0", "198.51.100.1", nil)), at: wall(1_000_500))
        let samples = metrics.samples
        XCTAssertEqual(MetricSample.value(of: "reach_internet_reachable", in: samples, labels: [.init("family", "ipv4")]), 1)
        XCTAssertEqual(MetricSample.value(of: "reach_internet_reachable", in: samples, labels: [.init("family", "ipv6")]), 0)
        let info = samples.first { $0.name == "reach_internet_info" }
        XCTAssertEqual(info?.labels, [.init("family", "ipv4"), .init("link", "eth0"), .init("kind", "ethernet"),
                                      .init("gateway", "198.51.100.1"), .init("reason", "")])
        XCTAssertEqual(samples.first { $0.name == "reach_transitions_total" }?.kind, .counter)
        XCTAssertEqual(MetricSample.value(of: "reach_last_transition_timestamp_seconds", in: samples), 1000.5)
        XCTAssertFalse(samples.contains { $0.name == "reach_connectivity_state" })
    }

    func testConnectivityWithProbes() throws {
        var metrics = InternetMetrics(probing: true)
        var first = try report((true, "eth0", nil, nil))
        first.attach(ConnectivityReport(state: .portal, probes: []))
        metrics.observe(first, at: wall(0))
        let states = metrics.samples.filter { $0.name == "reach_connectivity_state" }
        XCTAssertEqual(states.map { $0.labels[0].value }, ["full", "limited", "portal", "none"])
        XCTAssertEqual(states.map(\.value), [0, 0, 1, 0])
    }

    func testExpositionText() throws {
        var metrics = InternetMetrics()
        metrics.observe(try report((true, "eth0", "198.51.100.1", nil)), at: wall(1_732_532_400_123))
        XCTAssertEqual(String(decoding: ExpositionText.render(metrics.samples), as: UTF8.self), """
            # HELP reach_internet_reachable Whether the kernel has a usable route to the internet (1) or not (0)
            # TYPE reach_internet_reachable gauge
            reach_internet_reachable{family="ipv4"} 1.0
            reach_internet_reachable{family="ipv6"} 0.0
            # HELP reach_internet_info The path to the internet: outgoing link, its kind, gateway and unreachable reason
            # TYPE reach_internet_info gauge
            reach_internet_info{family="ipv4",link="eth0",kind="ethernet",gateway="198.51.100.1",reason=""} 1.0
            reach_internet_info{family="ipv6",link="",kind="",gateway="",reason="no_route"} 1.0
            # HELP reach_transitions_total Changes of the path to the internet (reachability, link, kind or gateway)
            # TYPE reach_transitions_total counter
            reach_transitions_total{family="ipv4"} 0
            reach_transitions_total{family="ipv6"} 0
            # HELP reach_last_transition_timestamp_seconds When the path to the internet last changed, or was first seen
            # TYPE reach_last_transition_timestamp_seconds gauge
            reach_last_transition_timestamp_seconds{family="ipv4"} 1732532400.123
            reach_last_transition_timestamp_seconds{family="ipv6"} 1732532400.123

            """)
        // The link loses its carrier a minute later: these lines change, and no other.
        let before = String(decoding: ExpositionText.render(metrics.samples), as: UTF8.self).split(separator: "\n").map(String.init)
        metrics.observe(try report((false, "eth0", nil, .noCarrier)), at: wall(1_732_532_460_500))
        let changed = [
            #"reach_internet_reachable{family="ipv4"} 1.0"#: #"reach_internet_reachable{family="ipv4"} 0.0"#,
            #"reach_internet_info{family="ipv4",link="eth0",kind="ethernet",gateway="198.51.100.1",reason=""} 1.0"#:
                #"reach_internet_info{family="ipv4",link="eth0",kind="ethernet",gateway="",reason="no_carrier"} 1.0"#,
            #"reach_transitions_total{family="ipv4"} 0"#: #"reach_transitions_total{family="ipv4"} 1"#,
            #"reach_last_transition_timestamp_seconds{family="ipv4"} 1732532400.123"#:
                #"reach_last_transition_timestamp_seconds{family="ipv4"} 1732532460.5"#,
        ]
        XCTAssertEqual(Set(changed.keys).subtracting(before), [])
        let after = before.map { (changed[$0] ?? $0) + "\n" }.joined()
        XCTAssertEqual(String(decoding: ExpositionText.render(metrics.samples), as: UTF8.self), after)
        let odd = ExpositionText.render([MetricSample("x", help: "a\\b\nc", labels: [.init("l", "q\"\\\n")], value: 2)])
        XCTAssertEqual(String(decoding: odd, as: UTF8.self),
                       "# HELP x a\\\\bc\n# TYPE x gauge\nx{l=\"q\\\"\\\\\\n\"} 2.0\n")
    }
}

import ReachCore
import ReachSystem
import XCTest

@testable import ReachExporter

/// The exposition format's one writer, ReachCore's `ExpositionText`, held to the byte: it
/// writes every answer of the exporter (`Exposition`) and `reach watch --textfile`. The
/// texts are what swift-prometheus 2.4.1, the exporter's writer before it, wrote for the
/// same samples (the same lines; its families and labelled samples came in a dictionary's
/// order, these in the samples').
final class ExpositionTests: XCTestCase {
    private func assertText(_ samples: [MetricSample], _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(String(decoding: Exposition.render(samples), as: UTF8.self), expected, file: file, line: line)
        XCTAssertEqual(Exposition.render(samples), ExpositionText.render(samples), file: file, line: line)
    }

    /// Backslash, double quote and line feed escaped in label values, byte by byte (the line
    /// feed of a "\r\n", one Character, too), a backslash in HELP, no HELP line for an empty
    /// help, a whole counter as an integer, a gauge as Swift prints a Double.
    func testEscapesAndOddValuesText() {
        let samples = [
            MetricSample("odd_labels", help: "Back\\slash help", labels: [.init("a", "quote \" back \\ newline \n end")], value: 0.1),
            MetricSample("odd_labels", help: "Back\\slash help", labels: [.init("a", "ünïcode")], value: -2.5e-07),
            MetricSample("odd_labels", help: "Back\\slash help", labels: [.init("a", "crlf \r\n end")], value: 3),
            MetricSample("big_counter", help: "A counter", kind: .counter, value: 123_456_789),
            MetricSample("no_help", help: "", value: 1e21),
            MetricSample("plain", help: "h", value: 1_732_532_400.123),
        ]
        assertText(
            samples,
            #"""
            # HELP odd_labels Back\\slash help
            # TYPE odd_labels gauge
            odd_labels{a="quote \" back \\ newline \n end"} 0.1
            odd_labels{a="ünïcode"} -2.5e-07
            odd_labels{a="crlf \#r\n end"} 3.0
            # HELP big_counter A counter
            # TYPE big_counter counter
            big_counter 123456789
            # TYPE no_help gauge
            no_help 1e+21
            # HELP plain h
            # TYPE plain gauge
            plain 1732532400.123

            """#)
    }

    func testProbeMeasurementsText() throws {
        var detail = ProbeMeasurement.ICMP()
        detail.rttSeconds = 0.000_123
        detail.replyHopLimit = 63
        var icmp = ProbeMeasurement(detail: .icmp(detail))
        icmp.success = true
        icmp.address = try IPAddress.parse("198.51.100.7")
        assertText(icmp.samples, Self.icmp)
        assertText(ProbeMeasurement(detail: .http(.init())).samples, Self.http)
        assertText(ProbeMeasurement(detail: .route(nil)).samples, Self.route)
    }

    /// blackbox_exporter's chooseProtocol families, which every prober that resolves writes.
    private static func address(protocol: String, hash: String) -> String {
        """
        # HELP probe_ip_protocol Specifies whether probe ip protocol is IP4 or IP6
        # TYPE probe_ip_protocol gauge
        probe_ip_protocol \(`protocol`)
        # HELP probe_dns_lookup_time_seconds Returns the time taken for probe dns lookup in seconds
        # TYPE probe_dns_lookup_time_seconds gauge
        probe_dns_lookup_time_seconds 0.0
        # HELP probe_ip_addr_hash Specifies the hash of IP address. It's useful to detect if the IP address changes.
        # TYPE probe_ip_addr_hash gauge
        probe_ip_addr_hash \(hash)

        """
    }

    /// The two families every answer ends with.
    private static func ending(success: String) -> String {
        """
        # HELP probe_success Displays whether or not the probe was a success
        # TYPE probe_success gauge
        probe_success \(success)
        # HELP probe_duration_seconds Returns how long the probe took to complete in seconds
        # TYPE probe_duration_seconds gauge
        probe_duration_seconds 0.0

        """
    }

    private static let icmp =
        """
        # HELP probe_icmp_duration_seconds Duration of icmp request by phase
        # TYPE probe_icmp_duration_seconds gauge
        probe_icmp_duration_seconds{phase="resolve"} 0.0
        probe_icmp_duration_seconds{phase="setup"} 0.0
        probe_icmp_duration_seconds{phase="rtt"} 0.000123

        """ + address(protocol: "4.0", hash: "553163531.0")
        + """
        # HELP probe_icmp_reply_hop_limit Replied packet hop limit (TTL for ipv4)
        # TYPE probe_icmp_reply_hop_limit gauge
        probe_icmp_reply_hop_limit 63.0

        """ + ending(success: "1.0")

    private static let http =
        """
        # HELP probe_http_duration_seconds Duration of http request by phase, summed over all redirects
        # TYPE probe_http_duration_seconds gauge
        probe_http_duration_seconds{phase="resolve"} 0.0
        probe_http_duration_seconds{phase="connect"} 0.0
        probe_http_duration_seconds{phase="tls"} 0.0
        probe_http_duration_seconds{phase="processing"} 0.0
        probe_http_duration_seconds{phase="transfer"} 0.0
        # HELP probe_http_content_length Length of http content response
        # TYPE probe_http_content_length gauge
        probe_http_content_length 0.0
        # HELP probe_http_uncompressed_body_length Length of uncompressed response body
        # TYPE probe_http_uncompressed_body_length gauge
        probe_http_uncompressed_body_length 0.0
        # HELP probe_http_redirects The number of redirects
        # TYPE probe_http_redirects gauge
        probe_http_redirects 0.0
        # HELP probe_http_ssl Indicates if SSL was used for the final redirect
        # TYPE probe_http_ssl gauge
        probe_http_ssl 0.0
        # HELP probe_http_status_code Response HTTP status code
        # TYPE probe_http_status_code gauge
        probe_http_status_code 0.0
        # HELP probe_http_version Returns the version of HTTP of the probe response
        # TYPE probe_http_version gauge
        probe_http_version 0.0
        # HELP probe_failed_due_to_regex Indicates if probe failed due to regex
        # TYPE probe_failed_due_to_regex gauge
        probe_failed_due_to_regex 0.0

        """ + address(protocol: "0.0", hash: "0.0") + ending(success: "0.0")

    private static let route =
        address(protocol: "0.0", hash: "0.0")
        + """
        # HELP reach_route_reachable Whether the kernel has a usable route to the target (1) or not (0); no packet sent
        # TYPE reach_route_reachable gauge
        reach_route_reachable 0.0
        # HELP reach_route_info The kernel's path to the target: unreachable reason, outgoing link, its kind, \
        gateway, family, cellular generation
        # TYPE reach_route_info gauge
        reach_route_info{reason="name_not_resolved",link="",kind="",gateway="",family="",generation=""} 1.0

        """ + ending(success: "0.0")
}

import ReachSystem
import XCTest

@testable import ReachExporter

/// The tcp, icmp and grpc probers' own keys: read as blackbox_exporter 0.23 reads them, and
/// every mistake one line naming the key and its line.
extension ExporterConfigurationTests {
    func testTCPQueryResponseAndSource() throws {
        let modules = try ExporterConfiguration.parse("""
            modules:
              smtp:
                prober: tcp
                tcp:
                  source_ip_address: 198.18.0.2
                  tls: false
                  query_response:
                    - expect: "^220 ([^ ]+) ESMTP"
                      send: "EHLO ${1}"
                    - send: QUIT
                      starttls: false
            """)
        let tcp = modules[0].tcp
        XCTAssertEqual(tcp.address.sourceIPAddress, "198.18.0.2")
        XCTAssertEqual(tcp.queryResponse.count, 2)
        XCTAssertEqual(tcp.queryResponse[0].expect?.pattern, "^220 ([^ ]+) ESMTP")
        XCTAssertEqual(tcp.queryResponse[0].send, "EHLO ${1}")
        XCTAssertNil(tcp.queryResponse[1].expect)
        XCTAssertEqual(tcp.queryResponse[1].send, "QUIT")
    }

    func testICMPOptions() throws {
        let modules = try ExporterConfiguration.parse("""
            modules:
              icmp_df:
                prober: icmp
                icmp:
                  ttl: 5
                  dont_fragment: true
                  payload_size: 1400
                  source_ip_address: "2001:db8::2"
              icmp_plain:
                prober: icmp
            """)
        XCTAssertEqual(modules[0].icmp.ttl, 5)
        XCTAssertTrue(modules[0].icmp.dontFragment)
        XCTAssertEqual(modules[0].icmp.payloadSize, 1400)
        XCTAssertEqual(modules[0].icmp.address.sourceIPAddress, "2001:db8::2")
        // blackbox_exporter's defaults: TTL 64, no DF, its 28-byte payload, no source.
        XCTAssertEqual(modules[1].icmp, ICMPProberSettings())
        XCTAssertEqual(modules[1].icmp.ttl, 64)
        XCTAssertEqual(modules[1].icmp.payloadSize, 0)
    }

    func testGRPCService() throws {
        let modules = try ExporterConfiguration.parse("""
            modules:
              grpc_plain:
                prober: grpc
                grpc:
                  service: up
                  tls: false
                  preferred_ip_protocol: ip4
            """)
        XCTAssertEqual(modules[0].prober, .grpc)
        XCTAssertEqual(modules[0].grpc.service, "up")
        XCTAssertEqual(modules[0].preferredIPProtocol, .ip4)
        XCTAssertEqual(try ProbeTarget.parse("198.18.0.1:50051", for: .grpc), ProbeTarget(host: "198.18.0.1", port: 50051))
        XCTAssertEqual(try ProbeTarget.parse("http://grpc.lab", for: .grpc), ProbeTarget(host: "grpc.lab", port: 80))
        XCTAssertEqual(try ProbeTarget.parse("https://[2001:db8::1]:443/x", for: .grpc), ProbeTarget(host: "2001:db8::1", port: 443))
        XCTAssertThrowsError(try ProbeTarget.parse("grpc.lab:0", for: .grpc))
    }

    func testMistakesNameTheKeyAndLine() {
        let unknown = "unknown key (blackbox_exporter 0.23 has no such setting)"
        let cases: [(body: String, message: String)] = [
            ("prober: tcp\n    tcp:\n      query_response: yes", "line 5: tcp.query_response: expected a list"),
            ("prober: tcp\n    tcp:\n      query_response:\n        - expect: \"(unclosed\"",
             "line 6: tcp.query_response.expect: '(unclosed': missing closing )"),
            ("prober: tcp\n    tcp:\n      query_response:\n        - expext: x", "line 6: tcp.query_response.expext: \(unknown)"),
            ("prober: tcp\n    tcp:\n      source_ip_address: nowhere", "line 5: tcp.source_ip_address: 'nowhere' is not an IP address"),
            ("prober: icmp\n    icmp:\n      ttl: 256", "line 5: icmp.ttl: 256 is not within 0-255"),
            ("prober: icmp\n    icmp:\n      ttl: -1", "line 5: icmp.ttl: -1 is not within 0-255"),
            ("prober: icmp\n    icmp:\n      payload_size: 70000", "line 5: icmp.payload_size: 70000 is not within 0-65507"),
            ("prober: icmp\n    icmp:\n      dont_fragment: maybe", "line 5: icmp.dont_fragment: expected true or false, not 'maybe'"),
            ("prober: grpc\n    grpc:\n      tls: true\n      tls_config: {min_version: TLS14}",
             "line 6: grpc.tls_config.min_version: 'TLS14' is not one of TLS10, TLS11, TLS12, TLS13"),
            ("prober: tcp\n    tcp:\n      tls: true\n      tls_config: {cert_file: /c.pem}",
             "line 6: tcp.tls_config: cert_file and key_file must be configured together"),
            ("prober: grpc\n    grpc:\n      service: [a]", "line 5: grpc.service: expected a string"),
            // A key of another prober is no key of this one.
            ("prober: icmp\n    icmp:\n      query_response: []", "line 5: icmp.query_response: \(unknown)"),
            ("prober: grpc\n    grpc:\n      ttl: 5", "line 5: grpc.ttl: \(unknown)"),
        ]
        for (body, message) in cases {
            XCTAssertEqual(error("modules:\n  m:\n    \(body)\n"), message, body)
        }
    }
}

import XCTest

@testable import ReachExporter
import ReachSystem

final class ExporterConfigurationTests: XCTestCase {
    func error(_ yaml: String) -> String? {
        do {
            _ = try ExporterConfiguration.parse(yaml)
            return nil
        } catch {
            return error.message
        }
    }

    func testBlackboxSubset() throws {
        let modules = try ExporterConfiguration.parse("""
            modules:
              icmp_v4:
                prober: icmp
                timeout: 2s
                icmp:
                  preferred_ip_protocol: ip4
                  ip_protocol_fallback: false
              web:
                prober: http
                timeout: 500ms
                http:
                  method: GET
                  follow_redirects: false
                  valid_status_codes: [200, 204]
              ssh:
                prober: tcp
              kernel:
                prober: route
            """)
        XCTAssertEqual(modules.map(\.name), ["icmp_v4", "web", "ssh", "kernel"])
        XCTAssertEqual(modules[0].prober, .icmp)
        XCTAssertEqual(modules[0].timeout, .seconds(2))
        XCTAssertEqual(modules[0].preferredIPProtocol, .ip4)
        XCTAssertFalse(modules[0].ipProtocolFallback)
        XCTAssertEqual(modules[1].timeout, .milliseconds(500))
        XCTAssertEqual(modules[1].validStatusCodes, [200, 204])
        XCTAssertFalse(modules[1].followRedirects)
        XCTAssertTrue(modules[2].followRedirects)
        XCTAssertTrue(modules[1].accepts(statusCode: 204))
        XCTAssertFalse(modules[1].accepts(statusCode: 201))
        XCTAssertEqual(modules[2].preferredIPProtocol, .ip6)
        XCTAssertTrue(modules[2].ipProtocolFallback)
        XCTAssertTrue(modules[2].accepts(statusCode: 299))
        XCTAssertNil(modules[3].timeout)
    }

    func testUnsupportedKeysAreNamedWithTheirLine() {
        XCTAssertEqual(error("""
            modules:
              web:
                prober: http
                http:
                  fail_if_ssl: true
            """), "line 5: unsupported key 'fail_if_ssl'")
        XCTAssertEqual(error("""
            modules:
              health:
                prober: smtp
            """), "line 3: unsupported prober 'smtp' (icmp, tcp, http, dns, grpc or route)")
        XCTAssertEqual(error("""
            modules:
              web:
                prober: http
                tls_config: {}
            """), "line 4: unsupported key 'tls_config'")
        XCTAssertEqual(error("global: 1\n"), "line 1: unsupported key 'global'")
        XCTAssertEqual(error("""
            modules:
              web:
                prober: http
                http:
                  method: POST
            """), "line 5: method: only GET is supported")
        XCTAssertEqual(error("""
            modules:
              ping:
                prober: icmp
                tcp:
                  preferred_ip_protocol: ip4
            """), "line 4: 'tcp' settings in a icmp module")
        XCTAssertEqual(error("""
            modules:
              ping:
                prober: icmp
                icmp:
                  valid_status_codes: [200]
            """), "line 5: unsupported key 'valid_status_codes'")
        XCTAssertEqual(
            error("modules:\n  p:\n    prober: icmp\n    timeout: soon\n"), "line 4: timeout: not a duration: 'soon' (5s, 500ms, 1m)")
        XCTAssertEqual(error("modules:\n  p:\n    timeout: 1s\n"), "line 3: module 'p' has no prober")
        XCTAssertEqual(error(""), "empty: no modules")
        XCTAssertEqual(error("modules:\n  p:\n    prober: icmp\n    \"a\\nb\\u0007\": 1\n"), "line 4: unsupported key 'a?b?'")
        // libyaml's own words (through Yams), with the place it gave up.
        XCTAssertEqual(error("modules: [unclosed\n"), "not YAML: 2:1: error: parser: while parsing a flow sequence in line 1, column 10")
    }

    func testDurations() {
        XCTAssertEqual(ExporterModule.seconds("5s"), 5)
        XCTAssertEqual(ExporterModule.seconds("250ms"), 0.25)
        XCTAssertEqual(ExporterModule.seconds("1m"), 60)
        XCTAssertNil(ExporterModule.seconds("-1s"))
        XCTAssertNil(ExporterModule.seconds("s"))
        XCTAssertNil(ExporterModule.seconds("5"))
    }
}

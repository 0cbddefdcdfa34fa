import NIOSSL
import XCTest

@testable import ReachExporterProbes

/// The one TLS version model: the names both tls_config and tls_server_config read, their
/// order (min_version above max_version is refused), and the one mapping to swift-nio-ssl.
final class TLSProtocolVersionTests: XCTestCase {
    func testNamesAreThoseOfPrometheusConfigurationsInOrder() {
        XCTAssertEqual(TLSProtocolVersion.allCases.map(\.rawValue), ["TLS10", "TLS11", "TLS12", "TLS13"])
        XCTAssertEqual(TLSProtocolVersion.allCases.sorted(by: >), [.tls13, .tls12, .tls11, .tls10])
        XCTAssertLessThan(TLSProtocolVersion.tls12, .tls13)
        XCTAssertNil(TLSProtocolVersion(rawValue: "TLS14"))
    }

    func testEachVersionMapsToSwiftNIOSSLsAndBack() {
        XCTAssertEqual(TLSProtocolVersion.allCases.map(\.nio), [.tlsv1, .tlsv11, .tlsv12, .tlsv13])
        for version in TLSProtocolVersion.allCases {
            XCTAssertEqual(TLSProtocolVersion(version.nio), version)
        }
    }

    /// blackbox_exporter's getTLSVersion names, for probe_tls_version_info.
    func testANegotiatedVersionIsNamedAsBlackboxExporterNamesIt() {
        XCTAssertEqual(TLSProtocolVersion.allCases.map(\.goName), ["TLS 1.0", "TLS 1.1", "TLS 1.2", "TLS 1.3"])
    }
}

import XCTest

@testable import ReachExporter

/// proxy_url as Go's transport dials it: the scheme's default port, user information as
/// credentials, and what reach-exporter refuses at load.
final class ProxyURLTests: XCTestCase {
    func testSchemesPortsAndCredentials() throws {
        let plain = try ProxyURL.parse("http://proxy.lab")
        XCTAssertEqual([plain.scheme.rawValue, plain.host, "\(plain.port)"], ["http", "proxy.lab", "80"])
        XCTAssertNil(plain.username)
        XCTAssertEqual(try ProxyURL.parse("https://proxy.lab/").port, 443)
        XCTAssertEqual(try ProxyURL.parse("SOCKS5://198.51.100.7").port, 1080)
        let v6 = try ProxyURL.parse("socks5://[2001:db8::1]:1081")
        XCTAssertEqual([v6.host, "\(v6.port)"], ["2001:db8::1", "1081"])
        XCTAssertEqual(try ProxyURL.parse("http://[2001:db8::1]").port, 80)
        let user = try ProxyURL.parse("http://us%40er:p%3Ass:word@proxy.lab:3128")
        XCTAssertEqual([user.username, user.password, user.host, "\(user.port)"], ["us@er", "p:ss:word", "proxy.lab", "3128"])
        XCTAssertEqual(try ProxyURL.parse("socks5://only@proxy.lab").username, "only")
        XCTAssertEqual(try ProxyURL.parse("socks5://only@proxy.lab").password, "")
    }

    func testWhatCannotBeSpokenToIsRefused() {
        let refused = [
            ("socks4://proxy.lab", "socks4:// proxies are not supported (http, https and socks5 are)"),
            ("proxy.lab:3128", "'proxy.lab:3128' has no scheme"),
            ("http://proxy.lab/path", "'http://proxy.lab/path': a proxy URL has no path"),
            ("http://a%zz@proxy.lab", "'http://a%zz@proxy.lab': bad percent-encoding in the user information"),
        ]
        for (text, message) in refused {
            XCTAssertThrowsError(try ProxyURL.parse(text), text) { XCTAssertEqual(($0 as? ProbeTarget.ParseError)?.description, message) }
        }
        XCTAssertThrowsError(try ProxyURL.parse("http://"))
    }
}

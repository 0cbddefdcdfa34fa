import XCTest

@testable import ReachExporter

final class ProbeTargetTests: XCTestCase {
    func testHostsForICMPAndRoute() throws {
        XCTAssertEqual(try ProbeTarget.parse("198.51.100.7", for: .icmp), ProbeTarget(host: "198.51.100.7"))
        XCTAssertEqual(try ProbeTarget.parse("[2001:db8::1]", for: .route), ProbeTarget(host: "2001:db8::1"))
        XCTAssertEqual(try ProbeTarget.parse("router.lab", for: .icmp), ProbeTarget(host: "router.lab"))
    }

    func testTCPNeedsAPort() throws {
        XCTAssertEqual(try ProbeTarget.parse("198.51.100.7:22", for: .tcp), ProbeTarget(host: "198.51.100.7", port: 22))
        XCTAssertEqual(try ProbeTarget.parse("[2001:db8::1]:443", for: .tcp), ProbeTarget(host: "2001:db8::1", port: 443))
        XCTAssertEqual(try ProbeTarget.parse("router.lab:80", for: .tcp), ProbeTarget(host: "router.lab", port: 80))
        for bad in ["198.51.100.7", "198.51.100.7:0", "198.51.100.7:65536", "2001:db8::1:80", "[2001:db8::1]80", "host:http", ":80"] {
            XCTAssertThrowsError(try ProbeTarget.parse(bad, for: .tcp), bad)
        }
    }

    func testHTTPURLs() throws {
        XCTAssertEqual(
            try ProbeTarget.parse("http://198.51.100.7/health?x=1", for: .http),
            ProbeTarget(host: "198.51.100.7", port: 80, path: "/health?x=1"))
        XCTAssertEqual(try ProbeTarget.parse("198.51.100.7:8080", for: .http), ProbeTarget(host: "198.51.100.7", port: 8080, path: "/"))
        XCTAssertEqual(
            try ProbeTarget.parse("HTTP://[2001:db8::1]:81#frag", for: .http), ProbeTarget(host: "2001:db8::1", port: 81, path: "/"))
        XCTAssertEqual(try ProbeTarget.parse("http://web.lab?q", for: .http), ProbeTarget(host: "web.lab", port: 80, path: "/?q"))
        XCTAssertEqual(
            try ProbeTarget.parse("web.lab/r?to=http://x", for: .http), ProbeTarget(host: "web.lab", port: 80, path: "/r?to=http://x"))
        XCTAssertEqual(
            try ProbeTarget.parse("https://web.lab/", for: .http), ProbeTarget(host: "web.lab", port: 443, path: "/", secure: true))
        XCTAssertThrowsError(try ProbeTarget.parse("ftp://web.lab/", for: .http)) {
            XCTAssertEqual(($0 as? ProbeTarget.ParseError)?.description, "ftp:// targets are not supported (http and https only)")
        }
        for bad in ["http://user@web.lab/", "http:///x", "http://web lab/", "", "http://web.lab:99999/"] {
            XCTAssertThrowsError(try ProbeTarget.parse(bad, for: .http), bad)
        }
    }
}

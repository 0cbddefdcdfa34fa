import XCTest
@testable import ReachCore
import ReachSystem

final class ProbeSpecTests: XCTestCase {
    func testTheThreeForms() throws {
        XCTAssertEqual(try ProbeSpec.parse("icmp:198.18.1.2"), .icmp(host: "198.18.1.2"))
        XCTAssertEqual(try ProbeSpec.parse("tcp:198.18.1.2:443"), .tcp(host: "198.18.1.2", port: 443))
        XCTAssertEqual(try ProbeSpec.parse("tcp:[2001:db8::1]:443"), .tcp(host: "2001:db8::1", port: 443))
        // An IPv6 literal bracketed as tcp: and http:// write it, or bare.
        XCTAssertEqual(try ProbeSpec.parse("icmp:[2001:db8::1]"), .icmp(host: "2001:db8::1"))
        XCTAssertEqual(try ProbeSpec.parse("icmp:2001:db8::1"), .icmp(host: "2001:db8::1"))
        XCTAssertEqual(try ProbeSpec.parse("tcp:example.test:80"), .tcp(host: "example.test", port: 80))
        XCTAssertEqual(try ProbeSpec.parse("http://198.18.1.2/generate_204"),
                       .http(host: "198.18.1.2", port: 80, path: "/generate_204"))
        XCTAssertEqual(try ProbeSpec.parse("http://[2001:db8::1]:8080/x?y=1"),
                       .http(host: "2001:db8::1", port: 8080, path: "/x?y=1"))
        XCTAssertEqual(try ProbeSpec.parse("http://portal.test"), .http(host: "portal.test", port: 80, path: "/"))
        XCTAssertEqual(try ProbeSpec.parse("HTTP://h.test/"), .http(host: "h.test", port: 80, path: "/"))
    }

    func testDescriptionRoundTrips() throws {
        for text in ["icmp:198.18.1.2", "tcp:[2001:db8::1]:443", "http://198.18.1.2/generate_204", "http://h.test:8080/p"] {
            XCTAssertEqual(try ProbeSpec.parse(text).description, text)
        }
    }

    func testMalformedSpecsAreRefusedWithTheirReason() {
        let cases: [(String, ProbeSpec.ParseError)] = [
            ("icmp:", .missingHost("icmp:")),
            ("tcp:host", .missingPort("tcp:host")),
            ("tcp:host:", .missingPort("tcp:host:")),
            ("tcp:host:99999", .badPort("tcp:host:99999")),
            ("tcp:host:0", .badPort("tcp:host:0")),
            ("tcp:host:-1", .badPort("tcp:host:-1")),
            ("tcp:2001:db8::1:443", .badHost("tcp:2001:db8::1:443")),
            ("tcp:[2001:db8::1:443", .badHost("tcp:[2001:db8::1:443")),
            ("ftp://x", .unknownForm("ftp://x")),
            ("https://x/", .httpsRefused("https://x/")),
            ("http://", .missingHost("http://")),
            ("http://:80/", .missingHost("http://:80/")),
            ("http://a b/", .badHost("http://a b/")),
            ("", .unknownForm("")),
            ("x", .unknownForm("x")),
            // Found by `make fuzz` (probe-spec): accepted with host "[0[001", printed back
            // without brackets as a spec that no longer parsed.
            ("http://[[0[001]:880/l", .badHost("http://[[0[001]:880/l")),
            ("tcp:[db.test]:80", .badHost("tcp:[db.test]:80")),
            ("icmp:[2001:db8::1]:80", .badHost("icmp:[2001:db8::1]:80")),
            ("icmp:[db.test]", .badHost("icmp:[db.test]")),
            ("icmp:[2001:db8::1", .badHost("icmp:[2001:db8::1")),
            ("icmp:[[::1]", .badHost("icmp:[[::1]")),
            ("tcp:db]test:80", .badHost("tcp:db]test:80")),
            ("tcp:[db.test:80", .badHost("tcp:[db.test:80")),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try ProbeSpec.parse(text), text) { error in
                XCTAssertEqual(error as? ProbeSpec.ParseError, expected, text)
            }
        }
    }

    /// Found by `make fuzz` (probe-spec): U+0602 joins the "/" after it into one Character,
    /// so a split by Characters took "4)\u{602}/" for the host; it printed back as a spec
    /// that parsed to another host. Splitting by Unicode scalars ends the host at the "/".
    func testTheHostEndsAtTheSlashWhateverScalarPrecedesIt() throws {
        XCTAssertEqual(try ProbeSpec.parse("http://4)\u{602}/x"), .http(host: "4)\u{602}", port: 80, path: "/x"))
        XCTAssertEqual(try ProbeSpec.parse("http://h\u{301}:81/"), .http(host: "h\u{301}", port: 81, path: "/"))
        XCTAssertThrowsError(try ProbeSpec.parse("tcp:h:8\u{301}0"))
        for text in ["http://4)\u{602}/x", "tcp:h\u{301}:81"] {
            let spec = try ProbeSpec.parse(text)
            XCTAssertEqual(try ProbeSpec.parse(spec.description), spec, text)
        }
    }
}

import ReachSystem
import XCTest

@testable import ReachExporter

final class AllowListTests: XCTestCase {
    private func list(_ entries: String...) throws -> AllowList {
        AllowList(entries: try entries.map { try AllowList.entry($0) })
    }

    func testNothingIsAllowedUntilSomethingIs() {
        XCTAssertEqual(AllowList().refusal(of: "127.0.0.1"), "no --allow given: every target is refused")
    }

    func testNetworksHoldTheirAddressesOnly() throws {
        let allow = try list("198.51.100.0/24", "2001:db8::/32", "203.0.113.7", "198.18.0.0/15")
        for inside in ["198.51.100.0", "198.51.100.255", "2001:db8::1", "2001:db8:ffff::9", "203.0.113.7", "198.19.255.255"] {
            XCTAssertNil(allow.refusal(of: inside), inside)
        }
        for outside in ["198.51.101.1", "2001:db9::1", "203.0.113.8", "198.20.0.1", "::ffff:198.51.100.1", "127.0.0.1"] {
            XCTAssertEqual(allow.refusal(of: outside), "target \(try IPAddress.parse(outside)) is outside --allow", outside)
        }
    }

    func testOddPrefixLengthsMaskBits() throws {
        let allow = try list("198.18.0.0/15", "203.0.113.128/25", "0.0.0.0/0")
        XCTAssertNil(allow.refusal(of: "8.8.8.8"))
        let narrow = try list("203.0.113.128/25")
        XCTAssertNil(narrow.refusal(of: "203.0.113.200"))
        XCTAssertEqual(narrow.refusal(of: "203.0.113.127"), "target 203.0.113.127 is outside --allow")
    }

    func testNamesAndSuffixes() throws {
        let allow = try list("router.lab", "*.probe.example")
        XCTAssertNil(allow.refusal(of: "router.lab"))
        XCTAssertNil(allow.refusal(of: "ROUTER.lab."))
        XCTAssertNil(allow.refusal(of: "a.probe.example"))
        XCTAssertNil(allow.refusal(of: "b.a.probe.example"))
        XCTAssertEqual(allow.refusal(of: "probe.example"), "target probe.example is outside --allow")
        XCTAssertEqual(allow.refusal(of: "evilprobe.example"), "target evilprobe.example is outside --allow")
        XCTAssertEqual(allow.refusal(of: "router.lab.evil"), "target router.lab.evil is outside --allow")
        // A name is allowed by a name, never by the network its address is in.
        XCTAssertEqual(try list("127.0.0.0/8").refusal(of: "localhost"), "target localhost is outside --allow")
    }

    func testStarOpensEverything() throws {
        XCTAssertNil(try list("*").refusal(of: "anything.example"))
        XCTAssertNil(try list("*").refusal(of: "2001:db8::1"))
    }

    func testBadEntriesAreRefused() {
        for bad in ["198.51.100.0/33", "198.51.100.0/", "2001:db8::/129", "bad name", "*.", "**", "198.51.100.0/2x", "a..b", ""] {
            XCTAssertThrowsError(try AllowList.entry(bad), bad)
        }
    }
}

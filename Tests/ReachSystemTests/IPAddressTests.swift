import XCTest
@testable import ReachSystem

final class IPAddressTests: XCTestCase {
    /// Parsing, then the zone looked up as the command line does before using an address.
    private func parseError(_ text: String) -> IPAddress.ParseError? {
        do {
            _ = try IPAddress.parse(text).resolvingZone()
            return nil
        } catch {
            return error
        }
    }

    func testIPv4() throws {
        let parsed = try IPAddress.parse("198.18.0.2")
        XCTAssertEqual(parsed.family, .ipv4)
        XCTAssertEqual(parsed.bytes, [198, 18, 0, 2])
        XCTAssertEqual(parsed.scopeID, 0)
        XCTAssertNil(parsed.zone)
        XCTAssertEqual(parsed.description, "198.18.0.2")
    }

    func testIPv6() throws {
        let parsed = try IPAddress.parse("2001:db8::1")
        XCTAssertEqual(parsed.family, .ipv6)
        XCTAssertEqual(parsed.bytes, [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1])
        XCTAssertEqual(parsed.description, "2001:db8::1")
        XCTAssertEqual(try IPAddress.parse("2001:0DB8:0:0:0:0:0:1").description, "2001:db8::1", "canonical form")
        XCTAssertEqual(try IPAddress.parse("::ffff:192.0.2.1").family, .ipv6)
        XCTAssertEqual(try IPAddress.parse("::").description, "::")
    }

    func testStrictLiteralsOnly() {
        for text in ["999.1.1.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "0x7f.0.0.1", "1.2.3.4 ", " 1.2.3.4", "",
                     "::g", "2001:db8:::1", "1:2:3:4:5:6:7:8:9", "localhost", "[::1]", "%lo", "1.2.3.-1"] {
            XCTAssertEqual(parseError(text), .notAnAddress, text.debugDescription)
        }
    }

    /// The IPv4 reader that spares a list inet_pton takes what glibc's inet_pton takes,
    /// and refuses what it refuses.
    func testDottedQuadAgreesWithInetPton() {
        let texts = ["0.0.0.0", "255.255.255.255", "198.18.0.2", "1.2.3.4", "10.0.0.1", "01.2.3.4", "1.02.3.4", "1.2.3.00",
                     "256.1.1.1", "1.1.1.256", "999.1.1.1", "1.2.3", "1.2.3.4.5", "1.2.3.", ".1.2.3", "1..2.3", "1.2.3.4 ",
                     " 1.2.3.4", "1.2.3.-4", "1.2.3.4%eth0", "1.2.3.a", "0x1.2.3.4", "1.2.3.4/24", "", "1", "::1", "1.2.3.٤",
                     "1234.1.1.1", "100.200.255.0", "0.0.0.00", "12.34.56.78", "１.2.3.4"]
        for text in texts {
            XCTAssertEqual(IPAddress.dottedQuad(text), AddressConversion.bytes(ofLiteral: text, family: .ipv4), "'\(text)'")
        }
    }

    func testZoneByNameOrIndex() throws {
        // lo is index 1 in every network namespace.
        let byName = try IPAddress.parse("fe80::1%lo").resolvingZone()
        XCTAssertEqual(byName.scopeID, 1)
        XCTAssertEqual(byName.zone, "lo")
        XCTAssertEqual(byName.description, "fe80::1%lo")
        XCTAssertTrue(byName.isIPv6LinkLocal)

        let byIndex = try IPAddress.parse("fe80::1%1").resolvingZone()
        XCTAssertEqual(byIndex.scopeID, 1)
        XCTAssertEqual(byIndex.zone, "1")
    }

    func testParsingLooksUpNoInterface() throws {
        // The zone is text until it is resolved: parsing gives the same answer on any host.
        let named = try IPAddress.parse("fe80::1%nosuchif")
        XCTAssertEqual(named.zone, "nosuchif")
        XCTAssertEqual(named.scopeID, 0)
        XCTAssertEqual(named.description, "fe80::1%nosuchif")
        let numbered = try IPAddress.parse("fe80::1%4294967295")
        XCTAssertEqual(numbered.scopeID, 4_294_967_295)
        XCTAssertEqual(numbered.zone, "4294967295")
        XCTAssertEqual(try IPAddress.parse("fe80::1%lo").scopeID, 0)
        XCTAssertEqual(try IPAddress.parse("2001:db8::1").resolvingZone(), try IPAddress.parse("2001:db8::1"), "no zone: unchanged")
    }

    func testUnknownZone() {
        XCTAssertEqual(parseError("fe80::1%nosuchif"), .unknownZone("nosuchif"))
        XCTAssertEqual(parseError("fe80::1%"), .unknownZone(""))
        XCTAssertEqual(parseError("fe80::1%0"), .unknownZone("0"))
        XCTAssertEqual(parseError("fe80::1%4294967295"), .unknownZone("4294967295"))
        XCTAssertEqual(parseError("fe80::1%lo%lo"), .unknownZone("lo%lo"))
    }

    func testZoneOnIPv4IsRefused() {
        XCTAssertEqual(parseError("127.0.0.1%lo"), .zoneOnIPv4)
        XCTAssertEqual(parseError("127.0.0.1%"), .zoneOnIPv4)
    }

    func testFromBytes() {
        XCTAssertNil(IPAddress(family: .ipv4, bytes: [1, 2, 3]))
        XCTAssertNil(IPAddress(family: .ipv6, bytes: [1, 2, 3, 4]))
        let v4 = IPAddress(family: .ipv4, bytes: [192, 0, 2, 1], scopeID: 3, zone: "eth0")
        XCTAssertEqual(v4?.scopeID, 0, "IPv4 has no zone")
        XCTAssertNil(v4?.zone)
    }

    private func address(_ text: String) -> IPAddress {
        do {
            return try IPAddress.parse(text)
        } catch {
            preconditionFailure("test address \(text) does not parse: \(error)")
        }
    }

    func testLinkLocal() {
        XCTAssertTrue(address("fe80::1").isIPv6LinkLocal)
        XCTAssertTrue(address("febf::1").isIPv6LinkLocal)
        XCTAssertFalse(address("fec0::1").isIPv6LinkLocal)
        XCTAssertFalse(address("2001:db8::1").isIPv6LinkLocal)
        XCTAssertFalse(address("169.254.1.1").isIPv6LinkLocal)
    }

    func testFamilies() {
        XCTAssertEqual(AddressFamily(kernelValue: 2), .ipv4)
        XCTAssertEqual(AddressFamily(kernelValue: 10), .ipv6)
        XCTAssertNil(AddressFamily(kernelValue: 0))
        XCTAssertEqual(AddressFamily.ipv4.label, "IPv4")
        XCTAssertEqual(AddressFamily.ipv6.prefixLength, 128)
        XCTAssertEqual(AddressFamily.ipv6.addressLength, 16)
    }
}

import XCTest
@testable import ReachCore
import ReachSystem

final class NetlinkAttributeTests: XCTestCase {
    func testEncodedLengthCountsTheValueNotThePadding() {
        let attribute = NetlinkAttribute(type: 3, bytes: Array("eth0".utf8) + [0])
        let expected = hex("""
            0900 0300    // rta_len 9, rta_type 3 (IFLA_IFNAME)
            6574683000   // "eth0" NUL
            000000       // padding to 4 bytes
            """)
        XCTAssertEqual(hexString(attribute.encoded()), hexString(expected))
    }

    func testParsesARunAndKeepsUnknownTypesForTheCaller() throws {
        let bytes = hex("""
            0800 0400 02000000   // RTA_OIF 2
            0500 ff7f 2a000000   // type 0x7fff, nobody's: one byte and padding
            0400 0900            // an empty attribute
            """)
        let attributes = try NetlinkAttribute.parseAll(bytes[...])
        XCTAssertEqual(attributes.map(\.type), [4, 0x7fff, 9])
        XCTAssertEqual(try attributes[0].uint32(), 2)
        XCTAssertEqual(Array(attributes[1].value), [0x2a])
        XCTAssertEqual(attributes[2].value.count, 0)
    }

    func testKindDropsTheNestedAndByteOrderFlags() {
        // Captured links carry 0x803e: NLA_F_NESTED | 62.
        XCTAssertEqual(NetlinkAttribute(type: 0x803e, bytes: []).kind, 62)
        XCTAssertEqual(NetlinkAttribute(type: 0x4001, bytes: []).kind, 1)
        XCTAssertEqual(NetlinkAttribute(type: 0xc012, bytes: []).kind, 0x12)
    }

    func testLengthPastTheEndThrowsWithItsOffset() {
        let bytes = hex("""
            0800 0400 02000000   // RTA_OIF 2
            1400 0500 c6120002   // RTA_GATEWAY claiming 20 bytes, 8 left
            """)
        XCTAssertThrowsError(try NetlinkAttribute.parseAll(bytes[...])) { error in
            XCTAssertEqual((error as? ParseError)?.offset, 8)
        }
    }

    func testLengthBelowTheHeaderThrows() {
        for length: UInt8 in [0, 1, 3] {
            XCTAssertThrowsError(try NetlinkAttribute.parseAll([length, 0, 1, 0, 0, 0, 0, 0][...]), "rta_len \(length)") { error in
                XCTAssertTrue(error is ParseError)
            }
        }
    }

    func testLastAttributeMayOmitItsPadding() throws {
        let attributes = try NetlinkAttribute.parseAll(hex("0500 1000 06")[...]) // IFLA_OPERSTATE up, unpadded
        XCTAssertEqual(try attributes.first?.uint8(), 6)
    }

    func testParsesFromASliceThatDoesNotStartAtZero() throws {
        let bytes = [0xee, 0xee] + hex("0800 0400 07000000")
        let attributes = try NetlinkAttribute.parseAll(bytes[2...])
        XCTAssertEqual(try attributes.first?.uint32(), 7)
    }

    func testShortValuesThrowInsteadOfReadingPastThem() {
        XCTAssertThrowsError(try NetlinkAttribute(type: 4, bytes: [1, 2, 3]).uint32())
        XCTAssertThrowsError(try NetlinkAttribute(type: 16, bytes: []).uint8())
    }

    func testStringStopsAtTheFirstNul() {
        XCTAssertEqual(NetlinkAttribute(type: 3, bytes: Array("veth".utf8) + [0, 0x41]).string(), "veth")
        XCTAssertEqual(NetlinkAttribute(type: 3, bytes: Array("lo".utf8)).string(), "lo", "no NUL at all")
        XCTAssertEqual(NetlinkAttribute(type: 3, bytes: [0xff, 0]).string(), "\u{FFFD}", "bad UTF-8 is replaced, not trusted")
    }

    func testAddressNeedsTheFamilyLength() {
        XCTAssertEqual(NetlinkAttribute(type: 5, bytes: [198, 18, 0, 2]).address(family: .ipv4), address("198.18.0.2"))
        XCTAssertNil(NetlinkAttribute(type: 5, bytes: [198, 18, 0]).address(family: .ipv4))
        XCTAssertNil(NetlinkAttribute(type: 5, bytes: [198, 18, 0, 2]).address(family: .ipv6))
    }
}

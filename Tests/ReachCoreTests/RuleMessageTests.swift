import XCTest
@testable import ReachCore
import ReachSystem

/// RTM_GETRULE's dump request and RTM_NEWRULE's decoding, against hex written field by field
/// as the kernel fills them (fib_nl_fill_rule in net/core/fib_rules.c).
final class RuleMessageTests: XCTestCase {
    func testDumpRequestCarriesOnlyTheFamily() {
        let payload = RuleMessage.dumpPayload(family: .ipv6)
        let message = NetlinkMessage(type: .getRule, flags: [.request, .dump], sequence: 1, payload: payload[...])
        let expected = hex("""
            1c000000 2200 0103 01000000 00000000   // nlmsghdr: 28 bytes, RTM_GETRULE, NLM_F_REQUEST|NLM_F_DUMP, seq 1
            0a 00 00 00 00 00 00 00 00000000       // fib_rule_hdr: AF_INET6, the rest 0
            """)
        XCTAssertEqual(hexString(message.encoded()), hexString(expected))
    }

    func testDecodesASourceRuleAndItsTable() throws {
        let payload = hex("""
            02 00 18 00 64 00 00 01 00000000   // AF_INET, dst_len 0, src_len 24, tos 0, table 100, res, FR_ACT_TO_TBL, flags 0
            0800 0f00 64000000                 // FRA_TABLE 100
            0800 0e00 ffffffff                 // FRA_SUPPRESS_PREFIXLEN -1: none, as every rule carries it
            0500 1500 03 000000                // FRA_PROTOCOL 3 (boot): not a selector
            0800 0600 64000000                 // FRA_PRIORITY 100
            0800 0200 c6336400                 // FRA_SRC 198.51.100.0
            """)
        let rule = try RuleMessage.decode(payload[...])
        XCTAssertEqual(rule.family, .ipv4)
        XCTAssertEqual(rule.priority, 100)
        XCTAssertEqual(rule.table, 100)
        XCTAssertEqual(rule.action, .toTable)
        XCTAssertEqual(rule.selectorText, "from 198.51.100.0/24")
        XCTAssertFalse(rule.matchesAll)
        XCTAssertNil(rule.suppressPrefixLength)
        XCTAssertTrue(rule.canSelectDefaultRoute)
    }

    /// wg-quick's pair: `not fwmark 0xca6c lookup 51820` and `lookup main suppress_prefixlength 0`.
    func testDecodesAnInvertedMarkAndASuppressingRule() throws {
        let inverted = try RuleMessage.decode(hex("""
            02 00 00 00 00 00 00 01 02000000   // AF_INET, table 0 (in FRA_TABLE), FR_ACT_TO_TBL, FIB_RULE_INVERT
            0800 0f00 6cca0000                 // FRA_TABLE 51820
            0800 0600 de7f0000                 // FRA_PRIORITY 32734
            0800 0a00 6cca0000                 // FRA_FWMARK 0xca6c
            0800 1000 ffffffff                 // FRA_FWMASK: all bits
            """)[...])
        XCTAssertEqual(inverted.table, 51820)
        XCTAssertEqual(inverted.selectorText, "not fwmark 0xca6c")
        XCTAssertFalse(inverted.matchesAll)
        let suppressing = try RuleMessage.decode(hex("""
            02 00 00 00 fe 00 00 01 00000000   // AF_INET, table main, FR_ACT_TO_TBL
            0800 0f00 fe000000                 // FRA_TABLE 254
            0800 0600 dd7f0000                 // FRA_PRIORITY 32733
            0800 0e00 00000000                 // FRA_SUPPRESS_PREFIXLEN 0
            """)[...])
        XCTAssertEqual(suppressing.suppressPrefixLength, 0)
        XCTAssertTrue(suppressing.matchesAll)
        XCTAssertFalse(suppressing.canSelectDefaultRoute, "a default route is always suppressed")
    }

    func testAnInputLinkOtherThanLoopbackNeverMatchesThisHostsTraffic() throws {
        func rule(iif: String) throws -> PolicyRule {
            var bytes = hex("02 00 00 00 64 00 00 01 00000000")
            let name = Array(iif.utf8) + [0]
            bytes += [UInt8(4 + name.count), 0, 0x03, 0x00] + name
            bytes += [UInt8](repeating: 0, count: (4 - name.count % 4) % 4)
            return try RuleMessage.decode(bytes[...])
        }
        XCTAssertTrue(try rule(iif: "lo").canSelectDefaultRoute)
        XCTAssertEqual(try rule(iif: "lo").selectorText, "iif lo")
        XCTAssertFalse(try rule(iif: "eth1").canSelectDefaultRoute)
    }

    func testARejectActionSelectsNoTable() throws {
        let rule = try RuleMessage.decode(hex("0a 00 00 00 00 00 00 07 00000000  // AF_INET6, FR_ACT_UNREACHABLE")[...])
        XCTAssertEqual(rule.action, .unreachable)
        XCTAssertFalse(rule.canSelectDefaultRoute)
    }

    func testTruncatedHeaderThrows() {
        XCTAssertThrowsError(try RuleMessage.decode(hex("02 00 00")[...]))
        XCTAssertThrowsError(try RuleMessage.decode(hex("07 00 00 00 00 00 00 01 00000000  // AF_UNIX")[...]))
    }
}

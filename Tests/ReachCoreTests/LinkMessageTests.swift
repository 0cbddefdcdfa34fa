import XCTest
@testable import ReachCore
import ReachSystem

final class LinkMessageTests: XCTestCase {
    func testLinkRequest() {
        let request = NetlinkMessage(type: .getLink, flags: .request, sequence: 1,
                                     payload: LinkMessage.requestPayload(index: 2)[...])
        let expected = hex("""
            28000000     // nlmsg_len 40 = 16 header + 16 ifinfomsg + 8 attribute
            1200         // nlmsg_type RTM_GETLINK (18)
            0100         // nlmsg_flags NLM_F_REQUEST (one link, not a dump)
            01000000     // nlmsg_seq 1
            00000000     // nlmsg_pid 0: the kernel
            00           // ifi_family AF_UNSPEC
            00           // pad
            0000         // ifi_type
            02000000     // ifi_index 2
            00000000     // ifi_flags
            00000000     // ifi_change
            0800 1d00    // rta_len 8, IFLA_EXT_MASK (29)
            08000000     // RTEXT_FILTER_SKIP_STATS
            """)
        XCTAssertEqual(hexString(request.encoded()), hexString(expected))
    }

    func testIndexAboveInt32RangeIsCarriedBitForBit() {
        let payload = LinkMessage.requestPayload(index: 0xffff_fffe)
        XCTAssertEqual(Array(payload[4..<8]), [0xfe, 0xff, 0xff, 0xff])
    }

    private func decode(_ datagrams: [[UInt8]], file: StaticString = #filePath, line: UInt = #line) throws -> LinkFacts {
        XCTAssertEqual(datagrams.count, 1, file: file, line: line)
        let messages = try NetlinkMessage.parseAll(datagrams[0])
        XCTAssertEqual(messages.map(\.type), [.newLink], file: file, line: line)
        return try LinkMessage.decode(messages[0].payload)
    }

    func testCapturedLinks() throws {
        // Each reply also holds attributes reach does not read (statistics, AF_SPEC, types
        // newer than this machine's headers): they are skipped.
        let up: InterfaceFlags = [.up, .running, .lowerUp]
        let broadcast = InterfaceFlags(rawValue: 0x1002) // IFF_BROADCAST | IFF_MULTICAST
        let cases: [(String, [[UInt8]], LinkFacts)] = [
            ("lo", CapturedReply.linkLoopback, LinkFacts(
                index: 1, name: "lo", hardwareType: .loopback, flags: up.union(.loopback),
                operState: .unknown, kind: nil, carrier: true)),
            ("veth up", CapturedReply.linkVeth, LinkFacts(
                index: 2, name: "u0", hardwareType: .ether, flags: up.union(broadcast),
                operState: .up, kind: "veth", carrier: true)),
            ("veth, peer down", CapturedReply.linkVethNoCarrier, LinkFacts(
                index: 4, name: "u1", hardwareType: .ether, flags: broadcast.union(.up),
                operState: .lowerLayerDown, kind: "veth", carrier: false)),
            ("veth dormant", CapturedReply.linkVethDormant, LinkFacts(
                index: 6, name: "u2", hardwareType: .ether, flags: broadcast.union([.up, .lowerUp]),
                operState: .dormant, kind: "veth", carrier: true)),
            ("veth admin down", CapturedReply.linkVethAdminDown, LinkFacts(
                index: 8, name: "u3", hardwareType: .ether, flags: broadcast,
                operState: .down, kind: "veth", carrier: false)),
            ("tun, nothing attached", CapturedReply.linkTunDetached, LinkFacts(
                index: 9, name: "utun0", hardwareType: .none,
                flags: InterfaceFlags(rawValue: 0x1091), // UP | POINTOPOINT | NOARP | MULTICAST
                operState: .down, kind: "tun", carrier: false)),
            ("tun, attached", CapturedReply.linkTunAttached, LinkFacts(
                index: 9, name: "utun0", hardwareType: .none,
                flags: InterfaceFlags(rawValue: 0x1_10d1), // ... | RUNNING | LOWER_UP
                operState: .up, kind: "tun", carrier: true)),
            ("tap", CapturedReply.linkTap, LinkFacts(
                index: 10, name: "utap0", hardwareType: .ether, flags: broadcast,
                operState: .down, kind: "tun", carrier: false)),
            ("bridge", CapturedReply.linkBridge, LinkFacts(
                index: 11, name: "ubr0", hardwareType: .ether, flags: broadcast,
                operState: .down, kind: "bridge", carrier: true)),
            ("vxlan", CapturedReply.linkVxlan, LinkFacts(
                index: 12, name: "uvx0", hardwareType: .ether, flags: up.union(broadcast),
                operState: .unknown, kind: "vxlan", carrier: true)),
            ("macvlan", CapturedReply.linkMacvlan, LinkFacts(
                index: 13, name: "umv0", hardwareType: .ether, flags: up.union(broadcast),
                operState: .up, kind: "macvlan", carrier: true)),
        ]
        for (name, datagrams, expected) in cases {
            XCTAssertEqual(try decode(datagrams), expected, name)
        }
    }

    func testDumpMessagesDecodeOneByOne() throws {
        let links = try NetlinkMessage.parseAll(CapturedReply.linkDump[0]).map { try LinkMessage.decode($0.payload) }
        XCTAssertEqual(links.map(\.name), ["lo", "u0p"])
        XCTAssertEqual(links.map(\.index), [1, 2])
        XCTAssertEqual(links.map(\.kind), [nil, "veth"])
        XCTAssertEqual(links.map(\.operState), [.unknown, .up])
    }

    private var vethPayload: [UInt8] {
        get throws { Array(try NetlinkMessage.parseAll(CapturedReply.linkVeth[0])[0].payload) }
    }

    func testEveryTruncationThrowsOrDecodesWithoutTrapping() throws {
        let payload = try vethPayload
        let refused = try truncationsRefused(payload) { _ = try LinkMessage.decode($0) }
        XCTAssertGreaterThan(refused, payload.count / 2)
    }

    func testTruncatedHeaderThrows() throws {
        let payload = try vethPayload
        for length in [0, 1, 15] {
            XCTAssertThrowsError(try LinkMessage.decode(payload.prefix(length)), "ifinfomsg is 16 bytes, had \(length)")
        }
    }

    private let header = hex("""
        00 00 0100      // AF_UNSPEC, pad, ARPHRD_ETHER
        05000000        // ifi_index 5
        43100100        // UP | BROADCAST | RUNNING | MULTICAST | LOWER_UP
        00000000        // ifi_change
        """)

    func testTruncatedNestedLinkInfoThrows() {
        let attributes = hex("""
            1000 1200           // IFLA_LINKINFO, 16 bytes, nesting:
            0900 0100 76657468  //   IFLA_INFO_KIND "veth..." claiming 9 bytes
            """)
        // The outer attribute claims 16 bytes, 12 are there.
        XCTAssertThrowsError(try LinkMessage.decode((header + attributes)[...]))
        let inner = hex("""
            0c00 1200           // IFLA_LINKINFO, 12 bytes, nesting:
            1000 0100 76657468  //   IFLA_INFO_KIND claiming 16 bytes inside 8
            """)
        XCTAssertThrowsError(try LinkMessage.decode((header + inner)[...])) { error in
            XCTAssertTrue(error is ParseError)
        }
    }

    func testEmptyOperStateAndCarrierThrow() {
        XCTAssertThrowsError(try LinkMessage.decode((header + hex("0400 1000"))[...]), "IFLA_OPERSTATE without a value")
        XCTAssertThrowsError(try LinkMessage.decode((header + hex("0400 2100"))[...]), "IFLA_CARRIER without a value")
    }

    func testMinimalLinkAndUnknownAttributes() throws {
        let attributes = hex("""
            0700 0300 65300000   // IFLA_IFNAME "e0"
            0800 ff3f 01000000   // type 0x3fff: unknown, skipped
            0c00 1200            // IFLA_LINKINFO, 12 bytes, nesting:
            0800 0200 00000000   //   IFLA_INFO_DATA only: no kind
            0500 1000 05000000   // IFLA_OPERSTATE dormant
            """)
        let link = try LinkMessage.decode((header + attributes)[...])
        XCTAssertEqual(link, LinkFacts(index: 5, name: "e0", hardwareType: .ether,
                                       flags: InterfaceFlags(rawValue: 0x1_1043), operState: .dormant))
    }

    func testOperStateNames() {
        let names = (0...6).map { OperState(rawValue: UInt8($0)).description }
        XCTAssertEqual(names, ["unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up"])
        XCTAssertEqual(OperState(rawValue: 9).description, "9")
    }
}

import XCTest
@testable import ReachCore
import ReachSystem

final class RouteMessageTests: XCTestCase {
    // MARK: Encoding RTM_GETROUTE

    func testIPv4LookupRequest() {
        let request = NetlinkMessage(type: .getRoute, flags: .request, sequence: 1,
                                     payload: RouteMessage.lookupPayload(destination: address("198.18.0.2"))[...])
        let expected = hex("""
            24000000            // nlmsg_len 36 = 16 header + 12 rtmsg + 8 attribute
            1a00                // nlmsg_type RTM_GETROUTE (26)
            0100                // nlmsg_flags NLM_F_REQUEST
            01000000            // nlmsg_seq 1
            00000000            // nlmsg_pid 0: the kernel
            02                  // rtm_family AF_INET
            20                  // rtm_dst_len 32: one host
            00                  // rtm_src_len
            00                  // rtm_tos
            00                  // rtm_table: any (the rules decide)
            00                  // rtm_protocol
            00                  // rtm_scope
            00                  // rtm_type
            00000000            // rtm_flags: no RTM_F_FIB_MATCH, no RTM_F_LOOKUP_TABLE
            0800 0100           // rta_len 8, RTA_DST
            c6120002            // 198.18.0.2, network order
            """)
        XCTAssertEqual(hexString(request.encoded()), hexString(expected))
    }

    func testIPv6LookupRequest() {
        let payload = RouteMessage.lookupPayload(destination: address("2001:db8::1"))
        let expected = hex("""
            0a                  // rtm_family AF_INET6
            80                  // rtm_dst_len 128
            00 00               // rtm_src_len, rtm_tos
            00 00 00 00         // rtm_table, rtm_protocol, rtm_scope, rtm_type
            00000000            // rtm_flags
            1400 0100           // rta_len 20, RTA_DST
            20010db8 00000000   // 2001:db8::1
            00000000 00000001
            """)
        XCTAssertEqual(hexString(payload), hexString(expected))
        let request = NetlinkMessage(type: .getRoute, flags: .request, sequence: 5, payload: payload[...]).encoded()
        XCTAssertEqual(hexString(request.prefix(16)), hexString(hex("""
            30000000            // nlmsg_len 48
            1a00 0100           // RTM_GETROUTE, NLM_F_REQUEST
            05000000 00000000   // nlmsg_seq 5, nlmsg_pid 0
            """)))
    }

    func testIPv6WithZoneAddsTheOutputInterface() {
        let payload = RouteMessage.lookupPayload(destination: address("fe80::1"), outputInterface: 7)
        let expected = hex("""
            0a 80 00 00         // AF_INET6, /128, src_len, tos
            00 00 00 00         // table, protocol, scope, type
            00000000            // rtm_flags
            1400 0100           // rta_len 20, RTA_DST
            fe800000 00000000   // fe80::1
            00000000 00000001
            0800 0400           // rta_len 8, RTA_OIF: the zone's interface
            07000000            // ifindex 7, host order
            """)
        XCTAssertEqual(hexString(payload), hexString(expected))
    }

    // MARK: Decoding captured RTM_NEWROUTE

    private func decode(_ datagrams: [[UInt8]], file: StaticString = #filePath, line: UInt = #line) throws -> RouteAnswer {
        XCTAssertEqual(datagrams.count, 1, file: file, line: line)
        let messages = try NetlinkMessage.parseAll(datagrams[0])
        XCTAssertEqual(messages.map(\.type), [.newRoute], file: file, line: line)
        return try RouteMessage.decode(messages[0].payload)
    }

    func testUnicastViaGateway() throws {
        let answer = try decode(CapturedReply.routeViaGatewayInTable100)
        XCTAssertEqual(answer, RouteAnswer(
            family: .ipv4, type: .unicast, flags: RouteFlags(rawValue: 0x200), // RTM_F_CLONED
            table: 254, outputInterface: 2, gateway: address("198.18.0.2"),
            preferredSource: address("198.18.0.1"), destination: address("203.0.113.7")))
    }

    func testTableFromRTATableWhenTheKernelNamesIt() throws {
        // Asked with RTM_F_LOOKUP_TABLE, the kernel names table 100, where the `ip rule` sent the lookup.
        let answer = try decode(CapturedReply.routeViaGatewayLookupTable)
        XCTAssertEqual(answer.table, 100)
        XCTAssertEqual(answer.gateway, address("198.18.0.2"))
    }

    func testDirectlyConnected() throws {
        let answer = try decode(CapturedReply.routeDirectIPv4)
        XCTAssertEqual(answer.type, .unicast)
        XCTAssertNil(answer.gateway)
        XCTAssertEqual(answer.outputInterface, 2)
        XCTAssertEqual(answer.preferredSource, address("198.18.0.1"))
    }

    func testViaAnIPv6NextHop() throws {
        // RTA_VIA: an IPv4 route through an IPv6 gateway (struct rtvia: family, then the address).
        let answer = try decode(CapturedReply.routeViaIPv6NextHop)
        XCTAssertEqual(answer.family, .ipv4)
        XCTAssertEqual(answer.gateway, address("2001:db8:1::2"))
        XCTAssertEqual(answer.outputInterface, 2)
    }

    func testLocalRoutes() throws {
        let own = try decode(CapturedReply.routeLocalOwnAddress)
        XCTAssertEqual(own.type, .local)
        XCTAssertEqual(own.outputInterface, 1, "local answers leave through lo")
        XCTAssertEqual(own.destination, address("198.18.0.1"))
        XCTAssertEqual(own.flags.rawValue, 0x8000_0200, "RTCF_LOCAL | RTM_F_CLONED, kept though unnamed")

        let loopback = try decode(CapturedReply.routeLocalLoopback)
        XCTAssertEqual(loopback.type, .local)
        XCTAssertEqual(loopback.preferredSource, address("127.0.0.1"))

        let loopback6 = try decode(CapturedReply.routeIPv6Loopback)
        XCTAssertEqual(loopback6.family, .ipv6)
        XCTAssertEqual(loopback6.type, .local)
        XCTAssertEqual(loopback6.table, 255, "IPv6 names the local table")
        XCTAssertEqual(loopback6.outputInterface, 1)
    }

    func testIPv6ViaGatewaySkipsAttributesReachDoesNotRead() throws {
        // This reply also carries RTA_SRC, RTA_PRIORITY, RTA_CACHEINFO and RTA_PREF.
        let answer = try decode(CapturedReply.routeIPv6ViaGateway)
        XCTAssertEqual(answer, RouteAnswer(
            family: .ipv6, type: .unicast, flags: [], table: 254, outputInterface: 2,
            gateway: address("2001:db8:1::2"), preferredSource: address("2001:db8:1::1"),
            destination: address("2001:db8:2::5")))
    }

    func testIPv6LinkLocalWithZone() throws {
        let answer = try decode(CapturedReply.routeIPv6LinkLocalWithZone)
        XCTAssertEqual(answer.outputInterface, 2, "the zone's interface")
        XCTAssertNil(answer.gateway)
        XCTAssertEqual(answer.preferredSource.map(\.isIPv6LinkLocal), true)
    }

    func testNoCarrierRouteIsAnOrdinaryAnswer() throws {
        // The kernel keeps the route of a link without carrier and answers it without
        // RTNH_F_LINKDOWN: only the link's state tells (measured; docs/LINUX-FACTS.md, linkdown).
        let answer = try decode(CapturedReply.routeNoCarrier)
        XCTAssertEqual(answer.type, .unicast)
        XCTAssertEqual(answer.outputInterface, 4)
        XCTAssertFalse(answer.flags.contains(.linkDown))
    }

    func testPointToPointRoute() throws {
        let answer = try decode(CapturedReply.routePointToPointTunAttached)
        XCTAssertEqual(answer.outputInterface, 9)
        XCTAssertNil(answer.gateway)
        XCTAssertEqual(answer.preferredSource, address("198.18.5.1"))
    }

    // MARK: Unknown, malformed and older-kernel answers

    private var capturedPayload: ArraySlice<UInt8> {
        get throws { try NetlinkMessage.parseAll(CapturedReply.routeViaGatewayInTable100[0])[0].payload }
    }

    func testUnknownAttributesAreSkipped() throws {
        let extra = hex("""
            0800 ff7f 01020304     // type 0x7fff: from a newer kernel
            0c00 0080 0400 0400    // NLA_F_NESTED | 0, nesting an RTA_OIF-typed value
            09000000               //   that must not be taken for the route's own
            """)
        let payload = Array(try capturedPayload) + extra
        let answer = try RouteMessage.decode(payload[...])
        XCTAssertEqual(answer.outputInterface, 2)
        XCTAssertEqual(answer, try RouteMessage.decode(try capturedPayload))
    }

    func testEveryTruncationThrowsOrDecodesWithoutTrapping() throws {
        let payload = Array(try capturedPayload)
        let refused = try truncationsRefused(payload) { _ = try RouteMessage.decode($0) }
        XCTAssertGreaterThan(refused, payload.count / 2)
    }

    func testTruncatedHeaderAndAttributeThrow() throws {
        let payload = Array(try capturedPayload)
        XCTAssertThrowsError(try RouteMessage.decode(payload.prefix(11)), "rtmsg is 12 bytes")
        // Cut inside RTA_GATEWAY's address (the attribute starts at 12 + 4 × 8 = 44).
        XCTAssertThrowsError(try RouteMessage.decode(payload.prefix(50))) { error in
            XCTAssertEqual((error as? ParseError)?.offset, 32, "offset within the attributes")
        }
    }

    func testShortValuesThrow() {
        let header = hex("02 20 00 00 fe 00 00 01 00000000") // AF_INET /32, main, unicast
        XCTAssertThrowsError(try RouteMessage.decode((header + hex("0600 0400 0200 0000"))[...]), "RTA_OIF of 2 bytes")
        XCTAssertThrowsError(try RouteMessage.decode((header + hex("0500 1200 0a 000000"))[...]), "RTA_VIA of 1 byte")
        XCTAssertThrowsError(try RouteMessage.decode((header + hex("0600 0f00 6400 0000"))[...]), "RTA_TABLE of 2 bytes")
    }

    func testGatewayOfTheWrongLengthIsDropped() throws {
        let header = hex("02 20 00 00 fe 00 00 01 00000000")
        let answer = try RouteMessage.decode((header + hex("0700 0500 c61200 00"))[...])
        XCTAssertNil(answer.gateway)
    }

    func testViaOfAnUnknownFamilyIsDropped() throws {
        let header = hex("02 20 00 00 fe 00 00 01 00000000")
        let answer = try RouteMessage.decode((header + hex("0a00 1200 0700 c6120002 0000"))[...]) // AF_BRIDGE
        XCTAssertNil(answer.gateway)
    }

    func testFamilyOtherThanIPIsRefused() {
        for family: UInt8 in [0, 7, 29] {
            XCTAssertThrowsError(try RouteMessage.decode(([family] + hex("20 00 00 fe 00 00 01 00000000"))[...])) { error in
                XCTAssertEqual((error as? ParseError)?.offset, 0)
            }
        }
    }

    func testRejectTypesOfOlderKernelsDecode() throws {
        // Older kernels answer reject routes with a route message of that type (docs/LINUX-FACTS.md).
        for (byte, type) in [(7, RouteType.unreachable), (6, .blackhole), (8, .prohibit), (9, .throw)] {
            var payload = Array(try capturedPayload)
            payload[7] = UInt8(byte)
            XCTAssertEqual(try RouteMessage.decode(payload[...]).type, type)
        }
    }

    func testRouteTypeNames() {
        XCTAssertEqual(RouteType.unicast.description, "unicast")
        XCTAssertEqual(RouteType.throw.description, "throw")
        XCTAssertEqual(RouteType(rawValue: 42).description, "type 42")
    }

    func testSelectorsAreSentAsIPRouteGetSendsThem() {
        // `ip route get 198.18.0.2 from 198.18.0.9 oif 3 mark 0x10 uid 1000`, as iproute2's
        // iproute_get builds it.
        let selectors = RouteSelectors(source: address("198.18.0.9"), outputInterface: 3, mark: 0x10, uid: 1000)
        let payload = RouteMessage.lookupPayload(destination: address("198.18.0.2"), selectors: selectors)
        let expected = hex("""
            02 20 20 00         // AF_INET, rtm_dst_len 32, rtm_src_len 32, tos
            00 00 00 00         // table, protocol, scope, type
            00000000            // rtm_flags
            0800 0100 c6120002  // RTA_DST 198.18.0.2
            0800 0200 c6120009  // RTA_SRC 198.18.0.9
            0800 0400 03000000  // RTA_OIF 3
            0800 1000 10000000  // RTA_MARK 0x10
            0800 1900 e8030000  // RTA_UID 1000
            """)
        XCTAssertEqual(hexString(payload), hexString(expected))
        XCTAssertEqual(RouteMessage.lookupPayload(destination: address("198.18.0.2"), selectors: .none),
                       RouteMessage.lookupPayload(destination: address("198.18.0.2")))
    }
}

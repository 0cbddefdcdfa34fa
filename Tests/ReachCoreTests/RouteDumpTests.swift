import XCTest
@testable import ReachCore
import ReachSystem

/// `ip route show table all` and `ip rule show` over rtnetlink: the dump requests, a dump
/// read to NLMSG_DONE over several datagrams, an interrupted dump asked again, and the
/// routes' metrics and next hops decoded.
final class RouteDumpTests: XCTestCase {
    /// `default via 198.18.2.1 dev (3) proto static metric 200 linkdown`, table main.
    private static let defaultViaGateway = hex("""
        02 00 00 00 fe 04 00 01 10000000   // rtmsg: AF_INET, /0, table main, RTPROT_STATIC, scope 0, RTN_UNICAST, RTNH_F_LINKDOWN
        0800 0f00 fe000000                 // RTA_TABLE 254
        0800 0600 c8000000                 // RTA_PRIORITY 200
        0800 0500 c6120201                 // RTA_GATEWAY 198.18.2.1
        0800 0400 03000000                 // RTA_OIF 3
        """)

    /// `default metric 10 nexthop via 198.18.1.1 dev (2) nexthop via 198.18.2.1 dev (3) dead`.
    private static let multipathDefault = hex("""
        02 00 00 00 fe 04 00 01 00000000   // rtmsg: AF_INET, /0, table main, RTN_UNICAST
        0800 0f00 fe000000                 // RTA_TABLE 254
        0800 0600 0a000000                 // RTA_PRIORITY 10
        2400 0900                          // RTA_MULTIPATH, 36 bytes
        1000 00 00 02000000                // rtnexthop: 16 bytes, flags 0, hops 0, ifindex 2
        0800 0500 c6120101                 //   RTA_GATEWAY 198.18.1.1
        1000 01 00 03000000                // rtnexthop: 16 bytes, RTNH_F_DEAD, ifindex 3
        0800 0500 c6120201                 //   RTA_GATEWAY 198.18.2.1
        """)

    private func message(_ type: NetlinkMessageType, _ payload: [UInt8], sequence: UInt32 = 1,
                         flags: NetlinkMessageFlags = .multi) -> [UInt8] {
        NetlinkMessage(type: type, flags: flags, sequence: sequence, payload: payload[...]).encoded()
    }

    private func done(sequence: UInt32 = 1, flags: NetlinkMessageFlags = .multi) -> [UInt8] {
        message(.done, [0, 0, 0, 0], sequence: sequence, flags: flags)
    }

    func testDecodesMetricGatewayAndLinkDown() throws {
        let route = try RouteMessage.decodeTableRoute(Self.defaultViaGateway[...])
        XCTAssertTrue(route.isDefault)
        XCTAssertEqual(route.metric, 200)
        XCTAssertEqual(route.route.table, 254)
        XCTAssertEqual(route.nextHops, [NextHop(outputInterface: 3, gateway: address("198.18.2.1"), flags: .linkDown)])
    }

    func testDecodesEveryNextHopOfAMultipathRoute() throws {
        let route = try RouteMessage.decodeTableRoute(Self.multipathDefault[...])
        XCTAssertEqual(route.metric, 10)
        XCTAssertEqual(route.nextHops, [
            NextHop(outputInterface: 2, gateway: address("198.18.1.1")),
            NextHop(outputInterface: 3, gateway: address("198.18.2.1"), flags: .dead),
        ])
        var truncated = Self.multipathDefault
        truncated[32] = 0x40  // the first next hop claims 64 bytes
        XCTAssertThrowsError(try RouteMessage.decodeTableRoute(truncated[...]))
    }

    func testReadsADumpToItsEndAcrossDatagrams() throws {
        let transport = FakeNetlinkTransport(replies: [
            message(.newRoute, Self.defaultViaGateway),
            message(.newRoute, Self.multipathDefault) + done(),
        ])
        let routes = try RouteNetlinkClient(transport: transport).routes(family: .ipv4)
        XCTAssertEqual(routes.map(\.metric), [200, 10])
        let expected = hex("""
            1c000000 1a00 0103 01000000 00000000   // nlmsghdr: 28 bytes, RTM_GETROUTE, NLM_F_REQUEST|NLM_F_DUMP, seq 1
            02 00 00 00 00 00 00 00 00000000       // rtmsg: AF_INET, every table
            """)
        XCTAssertEqual(transport.sent.map { hexString($0) }, [hexString(expected)])
    }

    func testAnInterruptedDumpIsAskedAgain() throws {
        let transport = FakeNetlinkTransport(replies: [
            message(.newRoute, Self.defaultViaGateway, flags: [.multi, .dumpInterrupted]) + done(flags: [.multi, .dumpInterrupted]),
            message(.newRoute, Self.multipathDefault, sequence: 2) + done(sequence: 2),
        ])
        let routes = try RouteNetlinkClient(transport: transport).routes(family: .ipv4)
        XCTAssertEqual(routes.map(\.metric), [10])
        XCTAssertEqual(transport.sent.count, 2)
    }

    func testAnotherFamilysMessagesAreLeftOut() throws {
        // A kernel without IPv6 answers an AF_INET6 dump with every family's (rtnl_dump_all).
        let transport = FakeNetlinkTransport(replies: [message(.newRoute, Self.defaultViaGateway) + done()])
        XCTAssertEqual(try RouteNetlinkClient(transport: transport).routes(family: .ipv6), [])
    }

    func testADumpErrorIsAFailureNamingTheRequest() {
        var errorPayload = ByteOrder.encodeHost(Int32(-95))  // -EOPNOTSUPP
        errorPayload += [UInt8](repeating: 0, count: 16)
        let transport = FakeNetlinkTransport(replies: [message(.error, errorPayload, flags: [])])
        XCTAssertThrowsError(try RouteNetlinkClient(transport: transport).rules(family: .ipv4)) { error in
            XCTAssertEqual((error as? NetlinkRequestError)?.request, "RTM_GETRULE dump")
        }
    }
}

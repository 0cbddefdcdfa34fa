import CReachShims
import XCTest
@testable import ReachCore
import ReachSystem

/// The netlink codecs write the kernel's numbers as Swift literals, so ReachCore compiles
/// without the C headers; this holds each literal to the header it mirrors.
final class KernelConstantsTests: XCTestCase {
    func testNetlinkHeaderValues() {
        XCTAssertEqual(NetlinkMessageFlags.request.rawValue, UInt16(NLM_F_REQUEST))
        XCTAssertEqual(NetlinkMessageFlags.multi.rawValue, UInt16(NLM_F_MULTI))
        XCTAssertEqual(NetlinkMessageFlags.acknowledge.rawValue, UInt16(NLM_F_ACK))
        XCTAssertEqual(NetlinkMessageFlags.dumpInterrupted.rawValue, UInt16(NLM_F_DUMP_INTR))
        XCTAssertEqual(NetlinkMessageFlags.dump.rawValue, UInt16(NLM_F_DUMP))
        let types: [(NetlinkMessageType, Int32)] = [
            (.noop, NLMSG_NOOP), (.error, NLMSG_ERROR), (.done, NLMSG_DONE), (.overrun, NLMSG_OVERRUN),
            (.newLink, Int32(RTM_NEWLINK)), (.deleteLink, Int32(RTM_DELLINK)), (.getLink, Int32(RTM_GETLINK)),
            (.newAddress, Int32(RTM_NEWADDR)), (.deleteAddress, Int32(RTM_DELADDR)), (.newRoute, Int32(RTM_NEWROUTE)),
            (.deleteRoute, Int32(RTM_DELROUTE)), (.getRoute, Int32(RTM_GETROUTE)), (.newRule, Int32(RTM_NEWRULE)),
            (.deleteRule, Int32(RTM_DELRULE)),
        ]
        for (type, header) in types { XCTAssertEqual(Int32(type.rawValue), header, "\(type)") }
    }

    func testRouteValues() {
        let types: [(RouteType, UInt32)] = [
            (.unspecified, UInt32(RTN_UNSPEC)), (.unicast, UInt32(RTN_UNICAST)), (.local, UInt32(RTN_LOCAL)),
            (.broadcast, UInt32(RTN_BROADCAST)), (.anycast, UInt32(RTN_ANYCAST)), (.multicast, UInt32(RTN_MULTICAST)),
            (.blackhole, UInt32(RTN_BLACKHOLE)), (.unreachable, UInt32(RTN_UNREACHABLE)), (.prohibit, UInt32(RTN_PROHIBIT)),
            (.throw, UInt32(RTN_THROW)),
        ]
        for (type, header) in types { XCTAssertEqual(UInt32(type.rawValue), header, "\(type)") }
        XCTAssertEqual(RouteFlags.dead.rawValue, UInt32(RTNH_F_DEAD))
        XCTAssertEqual(RouteFlags.onLink.rawValue, UInt32(RTNH_F_ONLINK))
        XCTAssertEqual(RouteFlags.linkDown.rawValue, UInt32(RTNH_F_LINKDOWN))
        let attributes: [(UInt16, rtattr_type_t)] = [
            (RouteAttribute.destination, RTA_DST), (RouteAttribute.outputInterface, RTA_OIF), (RouteAttribute.gateway, RTA_GATEWAY),
            (RouteAttribute.preferredSource, RTA_PREFSRC), (RouteAttribute.table, RTA_TABLE), (RouteAttribute.via, RTA_VIA),
        ]
        for (value, header) in attributes { XCTAssertEqual(UInt32(value), header.rawValue) }
    }

    func testLinkValues() {
        let attributes: [(UInt16, Int)] = [
            (LinkAttribute.name, Int(IFLA_IFNAME)), (LinkAttribute.operState, Int(IFLA_OPERSTATE)),
            (LinkAttribute.linkInfo, Int(IFLA_LINKINFO)), (LinkAttribute.extendedMask, Int(IFLA_EXT_MASK)),
            (LinkAttribute.carrier, Int(IFLA_CARRIER)), (LinkAttribute.infoKind, Int(IFLA_INFO_KIND)),
            (LinkAttribute.infoData, Int(IFLA_INFO_DATA)),
        ]
        for (value, header) in attributes { XCTAssertEqual(Int(value), header) }
        let hardware: [(HardwareType, Int32)] = [
            (.ether, ARPHRD_ETHER), (.ppp, ARPHRD_PPP), (.tunnel, ARPHRD_TUNNEL), (.tunnel6, ARPHRD_TUNNEL6), (.sit, ARPHRD_SIT),
            (.ipgre, ARPHRD_IPGRE), (.loopback, ARPHRD_LOOPBACK), (.none, ARPHRD_NONE),
        ]
        for (type, header) in hardware { XCTAssertEqual(Int32(type.rawValue), header) }
        XCTAssertEqual(LinkMessage.skipStatistics, UInt32(RTEXT_FILTER_SKIP_STATS))
    }
}

import XCTest
@testable import ReachCore

final class PathEvaluatorTests: XCTestCase {
    private final class NoKernel: KernelRoutingFacts {
        func lookupRoute(to destination: IPAddress) throws -> RouteLookupResult { .rejected(.networkUnreachable) }
        func link(index: UInt32) throws -> LinkFacts? { nil }
    }

    private let evaluator = PathEvaluator(kernel: NoKernel(), classifier: LinkClassifier(sysfs: SysfsNetDirectory(root: "/nonexistent")))
    private let peer = try! IPAddress.parse("198.18.2.1")

    private func veth(_ flags: InterfaceFlags, _ state: OperState) -> LinkFacts {
        LinkFacts(index: 3, name: "v2", hardwareType: .ether, flags: flags, operState: state, kind: "veth")
    }

    func testDirectPeerWithCarrierIsReachableAndDirect() {
        let route = RouteAnswer(family: .ipv4, type: .unicast, outputInterface: 3)
        let report = evaluator.evaluate(peer, route: route, link: veth([.up, .running, .lowerUp], .up))
        XCTAssertEqual(report.flags.flagString, "-R ------d")
        XCTAssertNil(report.reason)
    }

    /// Carrier lost at the peer: the kernel keeps the route (marked linkdown) but nothing passes.
    func testDirectRouteWithoutCarrierIsConnectionRequiredOnly() {
        let route = RouteAnswer(family: .ipv4, type: .unicast, flags: [.linkDown], outputInterface: 3)
        let report = evaluator.evaluate(peer, route: route, link: veth([.up], .down))
        XCTAssertEqual(report.flags.flagString, "-- c------")
        XCTAssertEqual(report.reason, .noCarrier)
    }

    /// tun and tap share the netlink kind "tun"; only the tun (ARPHRD_NONE) is a tunnel.
    func testTapIsAVirtualEthernetLinkNotATransientConnection() {
        let route = RouteAnswer(family: .ipv4, type: .unicast, outputInterface: 4)
        let tap = LinkFacts(index: 4, name: "tap0", hardwareType: .ether, flags: [.up, .running, .lowerUp], operState: .up, kind: "tun")
        let tapReport = evaluator.evaluate(peer, route: route, link: tap)
        XCTAssertEqual(tapReport.flags.flagString, "-R ------d")
        XCTAssertEqual(tapReport.link?.kind, .virtual)

        let tun = LinkFacts(index: 4, name: "tun0", hardwareType: .none, flags: [.up, .running, .lowerUp, .pointToPoint], operState: .up, kind: "tun")
        let tunReport = evaluator.evaluate(peer, route: route, link: tun)
        XCTAssertEqual(tunReport.flags.flagString, "-R -t-----")
        XCTAssertEqual(tunReport.link?.kind, .vpn)
    }
}

import XCTest
@testable import ReachCore
import ReachSystem

/// Apple's rule, checked without a kernel: cellular under a tunnel is still cellular.
final class TunnelUnderlayTests: XCTestCase {
    private let vxlan = LinkFacts(index: 5, name: "vx0", hardwareType: .ether, flags: [.up, .running, .lowerUp],
                                  operState: .unknown, kind: "vxlan", tunnelRemote: try! IPAddress.parse("198.18.0.2"))
    private let modem = LinkFacts(index: 3, name: "rmnet0", hardwareType: .rawIP, flags: [.up, .running, .lowerUp], operState: .up)
    private let wired = LinkFacts(index: 2, name: "eth0", hardwareType: .ether, flags: [.up, .running, .lowerUp], operState: .up)
    private let route = RouteAnswer(family: .ipv4, type: .unicast, outputInterface: 5, gateway: try! IPAddress.parse("198.19.0.2"))

    func testCellularUnderlayFoldsInIsWWAN() throws {
        let evaluator = PathEvaluator(kernel: NoKernel(), classifier: LinkClassifier(sysfs: SysfsNetDirectory(root: "/nonexistent")))
        let report = evaluator.evaluate(try IPAddress.parse("8.8.8.8"), route: route, link: vxlan, underlay: modem)
        XCTAssertEqual(report.link?.kind, .virtual)
        XCTAssertEqual(report.underlyingLink?.name, "rmnet0")
        XCTAssertEqual(report.underlyingLink?.kind, .cellular)
        XCTAssertTrue(report.flags.contains(.isWWAN))
        XCTAssertTrue(report.isReachable)
    }

    func testNoCellularRefusesATunnelOverCellular() throws {
        let evaluator = PathEvaluator(kernel: NoKernel(), classifier: LinkClassifier(sysfs: SysfsNetDirectory(root: "/nonexistent")),
                                      allowsCellular: false)
        let overModem = evaluator.evaluate(try IPAddress.parse("8.8.8.8"), route: route, link: vxlan, underlay: modem)
        XCTAssertEqual(overModem.reason, .cellularRefused)
        let overWire = evaluator.evaluate(try IPAddress.parse("8.8.8.8"), route: route, link: vxlan, underlay: wired)
        XCTAssertNil(overWire.reason)
        XCTAssertFalse(overWire.flags.contains(.isWWAN))
    }

    func testTunnelRemoteIsDecodedPerKind() throws {
        // IFLA_INFO_DATA of a vxlan: IFLA_VXLAN_ID (1) = 42, IFLA_VXLAN_GROUP (2) = 198.18.0.2.
        let data: [UInt8] = [0x08, 0x00, 0x01, 0x00, 0x2a, 0x00, 0x00, 0x00,
                             0x08, 0x00, 0x02, 0x00, 198, 18, 0, 2]
        XCTAssertEqual(try LinkMessage.tunnelRemote(kind: "vxlan", data: data[...]), try IPAddress.parse("198.18.0.2"))
        // The same bytes mean nothing for a kind without a remote end.
        XCTAssertNil(try LinkMessage.tunnelRemote(kind: "veth", data: data[...]))
        // A multicast vxlan group has no single remote end.
        let group: [UInt8] = [0x08, 0x00, 0x02, 0x00, 239, 1, 1, 1]
        XCTAssertNil(try LinkMessage.tunnelRemote(kind: "vxlan", data: group[...]))
        // Truncated data is an error, not a trap.
        XCTAssertThrowsError(try LinkMessage.tunnelRemote(kind: "vxlan", data: [0x08, 0x00, 0x02, 0x00, 198][...]))
    }
}

private final class NoKernel: KernelRoutingFacts {
    func lookupRoutes(to destinations: [IPAddress], selectors: RouteSelectors) throws -> [RouteLookupResult] {
        destinations.map { _ in .rejected(.networkUnreachable) }
    }
    func link(index: UInt32) throws -> LinkFacts? { nil }
}

import XCTest
@testable import ReachCore
import ReachSystem

final class LinkClassifierTests: XCTestCase {
    private var tree: FakeSysfsTree!
    private var classifier: LinkClassifier { LinkClassifier(sysfs: tree.directory) }

    override func setUpWithError() throws {
        tree = try FakeSysfsTree()
    }

    override func tearDown() {
        tree = nil
    }

    private func link(_ name: String, _ index: UInt32, _ type: HardwareType = .ether, kind: String? = nil,
                      flags: InterfaceFlags = [.up, .running]) -> LinkFacts {
        LinkFacts(index: index, name: name, hardwareType: type, flags: flags, operState: .up, kind: kind)
    }

    func testWifi() throws {
        try tree.addLink("wlan0", ifindex: 3, deviceType: "wlan")
        try tree.addLink("wlp2s0", ifindex: 4, phy80211: true)
        try tree.addLink("wlx0", ifindex: 5, wireless: true)
        XCTAssertEqual(classifier.classify(link("wlan0", 3)), .wifi, "DEVTYPE wlan")
        XCTAssertEqual(classifier.classify(link("wlp2s0", 4)), .wifi, "phy80211")
        XCTAssertEqual(classifier.classify(link("wlx0", 5)), .wifi, "wireless/")
    }

    func testCellular() throws {
        try tree.addLink("wwan0", ifindex: 6, deviceType: "wwan")
        XCTAssertEqual(classifier.classify(link("wwan0", 6)), .cellular, "DEVTYPE wwan")
        for name in ["rmnet_data0", "rmnet0", "rev_rmnet0", "ccmni1"] {
            XCTAssertEqual(classifier.classify(link(name, 7)), .cellular, "\(name), by name, no sysfs entry")
        }
        XCTAssertEqual(classifier.classify(link("wwan1", 8, .rawIP)), .cellular, "ARPHRD_RAWIP")
    }

    func testWWANFrameworkLinkIsCellular() {
        // The kernel's WWAN framework (drivers/net/wwan: iosm, t7xx, mhi) makes links of kind
        // "wwan", ARPHRD_NONE or RAWIP; ARPHRD_NONE alone would read as a tunnel.
        XCTAssertEqual(classifier.classify(link("wwan0", 9, .none, kind: "wwan", flags: [.up, .running, .pointToPoint])), .cellular)
        XCTAssertEqual(classifier.classify(link("wwan1", 10, .rawIP, kind: "wwan")), .cellular)
    }

    func testSysfsEntryOfAnotherIndexIsIgnored() throws {
        // Same name, different link (another namespace's sysfs): its DEVTYPE must not count.
        try tree.addLink("eth0", ifindex: 12, deviceType: "wlan", phy80211: true)
        XCTAssertEqual(classifier.classify(link("eth0", 2)), .ethernet)
        try tree.addLink("usb0", ifindex: 13, deviceType: "wwan")
        XCTAssertEqual(classifier.classify(link("usb0", 3)), .ethernet)
    }

    func testNetlinkKinds() {
        let cases: [(String?, HardwareType, LinkKind)] = [
            ("veth", .ether, .virtual), ("bridge", .ether, .bridge), ("vxlan", .ether, .virtual),
            ("macvlan", .ether, .virtual), ("ipvlan", .ether, .virtual), ("vlan", .ether, .virtual),
            ("bond", .ether, .virtual), ("dummy", .ether, .virtual), ("vrf", .ether, .virtual),
            ("tun", .none, .vpn), ("tun", .ether, .virtual), // tun and tap share the kind
            ("wireguard", .none, .vpn), ("gre", .ipgre, .vpn), ("ipip", .tunnel, .vpn),
            ("sit", .sit, .vpn), ("ip6tnl", .tunnel6, .vpn), ("xfrm", .none, .vpn),
            ("ppp", .ppp, .vpn),
        ]
        for (kind, type, expected) in cases {
            XCTAssertEqual(classifier.classify(link("x0", 20, type, kind: kind)), expected, "kind \(kind ?? "nil")")
        }
    }

    func testKindWinsOverSysfs() throws {
        // NetworkManager's order: the netlink kind first.
        try tree.addLink("br-lan", ifindex: 21, deviceType: "wlan")
        XCTAssertEqual(classifier.classify(link("br-lan", 21, kind: "bridge")), .bridge)
    }

    func testHardwareTypes() {
        XCTAssertEqual(classifier.classify(link("lo", 1, .loopback, flags: [.up, .loopback])), .loopback)
        XCTAssertEqual(classifier.classify(link("ppp0", 30, .ppp)), .vpn, "ARPHRD_PPP without a kind")
        XCTAssertEqual(classifier.classify(link("tun9", 31, .none)), .vpn, "ARPHRD_NONE without a kind")
        XCTAssertEqual(classifier.classify(link("ib0", 32, HardwareType(rawValue: 32))), .other, "InfiniBand")
        XCTAssertEqual(classifier.classify(link("can0", 33, HardwareType(rawValue: 280))), .other, "CAN")
    }

    func testPlainEthernet() throws {
        XCTAssertEqual(classifier.classify(link("eth0", 2)), .ethernet, "no sysfs entry")
        try tree.addLink("enp3s0", ifindex: 3)
        XCTAssertEqual(classifier.classify(link("enp3s0", 3)), .ethernet, "an entry without DEVTYPE")
    }

    func testSysfsDeviceTypes() throws {
        try tree.addLink("br0", ifindex: 40, deviceType: "bridge")
        try tree.addLink("bond0", ifindex: 41, deviceType: "bond")
        try tree.addLink("eth0.5", ifindex: 42, deviceType: "vlan")
        try tree.addLink("wg0", ifindex: 43, deviceType: "wireguard")
        try tree.addLink("usb0", ifindex: 44, deviceType: "gadget")
        XCTAssertEqual(classifier.classify(link("br0", 40)), .bridge)
        XCTAssertEqual(classifier.classify(link("bond0", 41)), .virtual)
        XCTAssertEqual(classifier.classify(link("eth0.5", 42)), .virtual)
        XCTAssertEqual(classifier.classify(link("wg0", 43)), .vpn, "by DEVTYPE alone")
        XCTAssertEqual(classifier.classify(link("usb0", 44)), .other, "a DEVTYPE nobody named is not ethernet")
    }

    func testUnknownKindIsNeverEthernet() {
        XCTAssertEqual(classifier.classify(link("hsr0", 50, kind: "hsr")), .other)
    }

    func testCapturedLinks() throws {
        // The links the capture script made, decoded from the kernel's replies (empty sysfs).
        let cases: [([[UInt8]], LinkKind)] = [
            (CapturedReply.linkLoopback, .loopback), (CapturedReply.linkVeth, .virtual),
            (CapturedReply.linkTunAttached, .vpn), (CapturedReply.linkTunDetached, .vpn),
            (CapturedReply.linkTap, .virtual), (CapturedReply.linkBridge, .bridge),
            (CapturedReply.linkVxlan, .virtual), (CapturedReply.linkMacvlan, .virtual),
        ]
        for (datagrams, expected) in cases {
            let facts = try LinkMessage.decode(try NetlinkMessage.parseAll(datagrams[0])[0].payload)
            XCTAssertEqual(classifier.classify(facts), expected, facts.name)
        }
    }

    func testKindsAreTheClosedList() {
        XCTAssertEqual(LinkKind.allCases.map(\.rawValue),
                       ["loopback", "ethernet", "wifi", "cellular", "vpn", "bridge", "virtual", "other"])
    }
}

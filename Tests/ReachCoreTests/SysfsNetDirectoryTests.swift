import XCTest
@testable import ReachCore
import ReachSystem

final class SysfsNetDirectoryTests: XCTestCase {
    func testReadsDeviceTypeAndWirelessMarkers() throws {
        let tree = try FakeSysfsTree()
        try tree.addLink("wlan0", ifindex: 3, deviceType: "wlan", phy80211: true)
        try tree.addLink("eth0", ifindex: 2)
        XCTAssertEqual(tree.directory.facts(name: "wlan0", index: 3),
                       SysfsNetDirectory.Facts(deviceType: "wlan", isWireless: true))
        XCTAssertEqual(tree.directory.facts(name: "eth0", index: 2),
                       SysfsNetDirectory.Facts(deviceType: nil, isWireless: false))
    }

    func testEntryOfAnotherIndexIsNotTrusted() throws {
        // A sysfs mounted in another namespace can hold a different link of the same name.
        let tree = try FakeSysfsTree()
        try tree.addLink("wlan0", ifindex: 7, deviceType: "wlan")
        XCTAssertNil(tree.directory.facts(name: "wlan0", index: 3))
    }

    func testEntryWithoutIfindexOrWithGarbageIsNotTrusted() throws {
        let tree = try FakeSysfsTree()
        try tree.addLink("wwan0", ifindex: nil, deviceType: "wwan")
        XCTAssertNil(tree.directory.facts(name: "wwan0", index: 0))
        try tree.addLink("odd0", ifindex: 4)
        try "four\n".write(toFile: tree.root + "/odd0/ifindex", atomically: true, encoding: .utf8)
        XCTAssertNil(tree.directory.facts(name: "odd0", index: 4))
    }

    func testMissingEntryAndUnsafeNames() throws {
        let tree = try FakeSysfsTree()
        try tree.addLink("eth0", ifindex: 2)
        XCTAssertNil(tree.directory.facts(name: "eth1", index: 2))
        for name in ["", ".", "..", "../eth0", "eth0/.."] {
            XCTAssertNil(tree.directory.facts(name: name, index: 2), "name \(name.debugDescription)")
        }
    }

    func testWirelessDirectoryCountsAsWireless() throws {
        let tree = try FakeSysfsTree()
        try tree.addLink("wlp2s0", ifindex: 5, wireless: true)
        XCTAssertEqual(tree.directory.facts(name: "wlp2s0", index: 5)?.isWireless, true)
    }

    func testDefaultRootIsTheSystemOne() {
        XCTAssertEqual(SysfsNetDirectory().root, "/sys/class/net")
    }
}

import Foundation
@testable import ReachCore
import ReachSystem

/// A /sys/class/net lookalike in a temporary directory, removed on deinit.
final class FakeSysfsTree {
    let root: String

    init() throws {
        root = NSTemporaryDirectory() + "reach-sysfs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    var directory: SysfsNetDirectory { SysfsNetDirectory(root: root) }

    /// One link's entry: `ifindex` (nil: leave the file out), `uevent` with DEVTYPE
    /// when given, and the wireless markers.
    func addLink(_ name: String, ifindex: UInt32?, deviceType: String? = nil,
                 phy80211: Bool = false, wireless: Bool = false) throws {
        let directory = root + "/" + name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if let ifindex { try "\(ifindex)\n".write(toFile: directory + "/ifindex", atomically: true, encoding: .utf8) }
        var uevent = "INTERFACE=\(name)\nIFINDEX=\(ifindex ?? 0)\n"
        if let deviceType { uevent = "DEVTYPE=\(deviceType)\n" + uevent }
        try uevent.write(toFile: directory + "/uevent", atomically: true, encoding: .utf8)
        // Real trees make phy80211 a symlink to the wiphy, and wireless/ a directory.
        if phy80211 {
            try FileManager.default.createDirectory(atPath: root + "/.wiphy/phy-" + name, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: directory + "/phy80211", withDestinationPath: "../.wiphy/phy-" + name)
        }
        if wireless { try FileManager.default.createDirectory(atPath: directory + "/wireless", withIntermediateDirectories: true) }
    }
}

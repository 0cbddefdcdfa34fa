/// The sysfs facts about a link that netlink does not carry: DEVTYPE and the
/// wireless markers. Its root is injectable so tests can feed fake trees.
public struct SysfsNetDirectory: Sendable {
    public var root: String
    public init(root: String = "/sys/class/net") { self.root = root }

    public struct Facts: Equatable, Sendable {
        public var deviceType: String?
        public var isWireless: Bool

        public init(deviceType: String?, isWireless: Bool) {
            self.deviceType = deviceType
            self.isWireless = isWireless
        }
    }

    /// The entry for `name`, trusted only when its `ifindex` equals netlink's:
    /// a sysfs mounted in another namespace can hold a different link of the same name.
    public func facts(name: String, index: UInt32) -> Facts? {
        guard !name.isEmpty, !name.contains("/"), name != "." && name != ".." else { return nil }
        let directory = root + "/" + name
        guard let indexText = System.readSmallFile(directory + "/ifindex"),
              UInt32(indexText.split(whereSeparator: { $0 == "\n" || $0 == " " }).first ?? "") == index else { return nil }
        var deviceType: String?
        for line in (System.readSmallFile(directory + "/uevent") ?? "").split(separator: "\n") where line.hasPrefix("DEVTYPE=") {
            deviceType = String(line.dropFirst("DEVTYPE=".count))
        }
        let wireless = System.pathExists(directory + "/phy80211") || System.pathExists(directory + "/wireless")
        return Facts(deviceType: deviceType, isWireless: wireless)
    }
}

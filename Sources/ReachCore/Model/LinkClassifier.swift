import ReachSystem

/// Sorts a link into a `LinkKind` in NetworkManager's order; the first match wins.
public struct LinkClassifier: Sendable {
    public var sysfs: SysfsNetDirectory
    public init(sysfs: SysfsNetDirectory = SysfsNetDirectory()) { self.sysfs = sysfs }

    // Arrays, not sets: building the first Set<String> costs a protocol-conformance scan at
    // start-up, far more than comparing a dozen short strings (docs/PERFORMANCE-NOTES.md).
    static let vpnKinds: [String] = ["wireguard", "ipip", "gre", "ip6gre", "sit", "ip6tnl", "vti", "vti6", "xfrm", "ppp"]
    static let virtualKinds: [String] = [
        "veth", "macvlan", "macvtap", "ipvlan", "ipvtap", "vxlan", "geneve", "vlan", "bond", "team",
        "dummy", "vrf", "gretap", "ip6gretap", "netkit", "nlmon", "ifb",
    ]
    static let cellularNamePrefixes = ["rmnet", "rev_rmnet", "ccmni"]

    public func classify(_ link: LinkFacts) -> LinkKind {
        // 1. The netlink kind.
        if let kind = link.kind {
            if kind == "bridge" { return .bridge }
            // The kernel's WWAN framework (drivers/net/wwan: iosm, t7xx, mhi) names its links
            // "wwan"; they are ARPHRD_NONE and point-to-point, which would otherwise read as a tunnel.
            if kind == "wwan" { return .cellular }
            // tun and tap share the kind "tun"; a tap is an Ethernet-framed virtual link.
            if kind == "tun" { return link.hardwareType == .ether ? .virtual : .vpn }
            if Self.vpnKinds.contains(kind) { return .vpn }
            if Self.virtualKinds.contains(kind) { return .virtual }
        }
        // 2. The hardware type.
        switch link.hardwareType {
        case .loopback: return .loopback
        case .ppp, .none, .tunnel, .tunnel6, .sit, .ipgre: return .vpn
        default: break
        }
        // 3 and 4. sysfs DEVTYPE, then the wireless markers.
        let facts = sysfs.facts(name: link.name, index: link.index)
        switch facts?.deviceType {
        case "wlan": return .wifi
        case "wwan": return .cellular
        case "bridge": return .bridge
        case "bond", "vlan": return .virtual
        case "wireguard": return .vpn
        default: break
        }
        if facts?.isWireless == true { return .wifi }
        // 5. Modem drivers that present Ethernet or raw-IP links by name.
        if link.hardwareType == .rawIP { return .cellular }
        if link.hardwareType == .ether, Self.cellularNamePrefixes.contains(where: link.name.hasPrefix) { return .cellular }
        // 6. A plain Ethernet link with nothing else said about it.
        if link.hardwareType == .ether, link.kind == nil, facts?.deviceType == nil { return .ethernet }
        return .other
    }
}


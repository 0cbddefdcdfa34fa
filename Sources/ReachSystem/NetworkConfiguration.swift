/// The per-link IP settings under /proc/sys/net that change which route a lookup takes.
/// Read in the caller's network namespace: /proc/sys/net shows the reader's own.
public enum NetworkConfiguration {
    /// `ignore_routes_with_linkdown` (Documentation/networking/ip-sysctl.rst) for the link with
    /// this index. IPv4 heeds `all` or the link's own (IN_DEV_ORCONF in
    /// include/linux/inetdevice.h); IPv6 the link's own, which a write to `all` sets on every
    /// link (addrconf_fixup_linkdown in net/ipv6/addrconf.c). false when unreadable.
    public static func ignoresRoutesWithLinkDown(interface index: UInt32, family: AddressFamily) -> Bool {
        guard let name = NetworkInterface.name(index: index), !name.contains("/") else { return false }
        let directory = family == .ipv4 ? "/proc/sys/net/ipv4/conf/" : "/proc/sys/net/ipv6/conf/"
        if family == .ipv4, isSet(directory + "all/ignore_routes_with_linkdown") { return true }
        return isSet(directory + name + "/ignore_routes_with_linkdown")
    }

    private static func isSet(_ path: String) -> Bool {
        guard let text = System.readSmallFile(path, limit: 64) else { return false }
        return (Int(text.split(whereSeparator: { $0 == "\n" || $0 == " " }).first ?? "") ?? 0) != 0
    }
}

import ReachSystem

/// Interface flags (`ifi_flags`, mirrors IFF_* in <net/if.h> and <linux/if.h>).
public struct InterfaceFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let up = InterfaceFlags(rawValue: 0x1)
    public static let loopback = InterfaceFlags(rawValue: 0x8)
    public static let pointToPoint = InterfaceFlags(rawValue: 0x10)
    public static let running = InterfaceFlags(rawValue: 0x40)
    public static let lowerUp = InterfaceFlags(rawValue: 0x10000)
    public static let dormant = InterfaceFlags(rawValue: 0x20000)
}

/// RFC 2863 operational state (`IFLA_OPERSTATE`, mirrors IF_OPER_* in <linux/if.h>).
public struct OperState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let unknown = OperState(rawValue: 0)
    public static let notPresent = OperState(rawValue: 1)
    public static let down = OperState(rawValue: 2)
    public static let lowerLayerDown = OperState(rawValue: 3)
    public static let testing = OperState(rawValue: 4)
    public static let dormant = OperState(rawValue: 5)
    public static let up = OperState(rawValue: 6)

    /// The names `ip link` and /sys/class/net/IF/operstate use.
    public var description: String {
        switch rawValue {
        case 0: "unknown"
        case 1: "notpresent"
        case 2: "down"
        case 3: "lowerlayerdown"
        case 4: "testing"
        case 5: "dormant"
        case 6: "up"
        default: "\(rawValue)"
        }
    }
}

/// Link-layer type (`ifi_type`, mirrors ARPHRD_* in <linux/if_arp.h>).
public struct HardwareType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public static let ether = HardwareType(rawValue: 1) // ARPHRD_ETHER
    public static let ppp = HardwareType(rawValue: 512) // ARPHRD_PPP
    public static let rawIP = HardwareType(rawValue: 519) // ARPHRD_RAWIP
    public static let tunnel = HardwareType(rawValue: 768) // ARPHRD_TUNNEL
    public static let tunnel6 = HardwareType(rawValue: 769) // ARPHRD_TUNNEL6
    public static let sit = HardwareType(rawValue: 776) // ARPHRD_SIT
    public static let ipgre = HardwareType(rawValue: 778) // ARPHRD_IPGRE
    public static let loopback = HardwareType(rawValue: 772) // ARPHRD_LOOPBACK
    public static let none = HardwareType(rawValue: 65534) // ARPHRD_NONE
}

/// What RTM_GETLINK tells about one link.
public struct LinkFacts: Equatable, Sendable {
    public var index: UInt32
    public var name: String
    public var hardwareType: HardwareType
    public var flags: InterfaceFlags
    public var operState: OperState
    /// IFLA_INFO_KIND ("veth", "tun", "bridge", ...); nil for a physical NIC.
    public var kind: String?
    /// IFLA_CARRIER, when the kernel reports it.
    public var carrier: Bool?
    /// The remote end of a kernel tunnel (vxlan, geneve, gre, ipip, sit, ip6tnl), from IFLA_INFO_DATA.
    public var tunnelRemote: IPAddress?

    public init(index: UInt32, name: String, hardwareType: HardwareType, flags: InterfaceFlags,
                operState: OperState, kind: String? = nil, carrier: Bool? = nil, tunnelRemote: IPAddress? = nil) {
        self.index = index
        self.name = name
        self.hardwareType = hardwareType
        self.flags = flags
        self.operState = operState
        self.kind = kind
        self.carrier = carrier
        self.tunnelRemote = tunnelRemote
    }
}

/// The link attribute types reach reads or sends (IFLA_* in <linux/if_link.h>). Written as
/// numbers, so the codec compiles without the C headers; ReachCoreTests checks each against them.
enum LinkAttribute {
    static let name: UInt16 = 3 // IFLA_IFNAME
    static let operState: UInt16 = 16 // IFLA_OPERSTATE
    static let linkInfo: UInt16 = 18 // IFLA_LINKINFO
    static let extendedMask: UInt16 = 29 // IFLA_EXT_MASK
    static let carrier: UInt16 = 33 // IFLA_CARRIER
    /// Inside IFLA_LINKINFO.
    static let infoKind: UInt16 = 1 // IFLA_INFO_KIND
    static let infoData: UInt16 = 2 // IFLA_INFO_DATA
}

/// RTM_GETLINK: encoding the request and decoding RTM_NEWLINK.
public enum LinkMessage {
    public static let headerLength = 16 // struct ifinfomsg

    /// RTEXT_FILTER_SKIP_STATS: leaves out the per-VF counters of SR-IOV NICs. IFLA_STATS and
    /// IFLA_STATS64 still come (captured: Tests/ReachCoreTests/Fixtures/CapturedReply.swift).
    static let skipStatistics: UInt32 = 1 << 3

    public static func requestPayload(index: UInt32) -> [UInt8] {
        var bytes: [UInt8] = [0, 0]              // ifi_family AF_UNSPEC, pad
        bytes += ByteOrder.encodeHost(UInt16(0))            // ifi_type
        bytes += ByteOrder.encodeHost(Int32(bitPattern: index)) // ifi_index
        bytes += ByteOrder.encodeHost(UInt32(0))            // ifi_flags
        bytes += ByteOrder.encodeHost(UInt32(0))            // ifi_change
        bytes += NetlinkAttribute(type: LinkAttribute.extendedMask, bytes: ByteOrder.encodeHost(skipStatistics)).encoded()
        return bytes
    }

    public static func decode(_ payload: ArraySlice<UInt8>) throws -> LinkFacts {
        var reader = ByteReader(payload)
        try reader.skip(2)                                   // family, pad
        let type = HardwareType(rawValue: try reader.readHostUInt16())
        let index = UInt32(bitPattern: try reader.readHostInt32())
        let flags = InterfaceFlags(rawValue: try reader.readHostUInt32())
        _ = try reader.readHostUInt32()                      // ifi_change
        var facts = LinkFacts(index: index, name: "", hardwareType: type, flags: flags, operState: .unknown)
        for attribute in try NetlinkAttribute.parseAll(payload.dropFirst(headerLength)) {
            switch attribute.kind {
            case LinkAttribute.name: facts.name = attribute.string()
            case LinkAttribute.operState: facts.operState = OperState(rawValue: try attribute.uint8())
            case LinkAttribute.carrier: facts.carrier = try attribute.uint8() != 0
            case LinkAttribute.linkInfo:
                let info = try NetlinkAttribute.parseAll(attribute.value)
                for item in info where item.kind == LinkAttribute.infoKind {
                    facts.kind = item.string()
                }
                for item in info where item.kind == LinkAttribute.infoData {
                    facts.tunnelRemote = try tunnelRemote(kind: facts.kind, data: item.value)
                }
            default: continue
            }
        }
        return facts
    }

    /// The remote address inside IFLA_INFO_DATA, by tunnel kind; nil for other kinds
    /// and for a vxlan group that is multicast (no single remote end).
    static func tunnelRemote(kind: String?, data: ArraySlice<UInt8>) throws -> IPAddress? {
        // IFLA_VXLAN_GROUP 2, IFLA_VXLAN_GROUP6 16, IFLA_GENEVE_REMOTE 2, IFLA_GENEVE_REMOTE6 7
        // (<linux/if_link.h>); IFLA_GRE_REMOTE 7, IFLA_IPTUN_REMOTE 3 (<linux/if_tunnel.h>, which
        // cannot be imported beside <netinet/ip.h>).
        let remoteAttributes: [(type: Int, family: AddressFamily)] = switch kind {
        case "vxlan": [(2, .ipv4), (16, .ipv6)]
        case "geneve": [(2, .ipv4), (7, .ipv6)]
        case "gre", "gretap": [(7, .ipv4)]
        case "ip6gre", "ip6gretap": [(7, .ipv6)]
        case "ipip", "sit": [(3, .ipv4)]
        case "ip6tnl": [(3, .ipv6)]
        default: []
        }
        guard !remoteAttributes.isEmpty else { return nil }
        for attribute in try NetlinkAttribute.parseAll(data) {
            for (type, family) in remoteAttributes where Int(attribute.kind) == type {
                guard let address = attribute.address(family: family), !address.isUnspecified, !address.isMulticast else { continue }
                return address
            }
        }
        return nil
    }
}

import ReachSystem

/// A route type (`rtm_type`, mirrors RTN_* in <linux/rtnetlink.h>).
public struct RouteType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let unspecified = RouteType(rawValue: 0) // RTN_UNSPEC
    public static let unicast = RouteType(rawValue: 1) // RTN_UNICAST
    public static let local = RouteType(rawValue: 2) // RTN_LOCAL
    public static let broadcast = RouteType(rawValue: 3) // RTN_BROADCAST
    public static let anycast = RouteType(rawValue: 4) // RTN_ANYCAST
    public static let multicast = RouteType(rawValue: 5) // RTN_MULTICAST
    public static let blackhole = RouteType(rawValue: 6) // RTN_BLACKHOLE
    public static let unreachable = RouteType(rawValue: 7) // RTN_UNREACHABLE
    public static let prohibit = RouteType(rawValue: 8) // RTN_PROHIBIT
    public static let `throw` = RouteType(rawValue: 9) // RTN_THROW

    public var description: String {
        switch self {
        case .unicast: "unicast"
        case .local: "local"
        case .broadcast: "broadcast"
        case .anycast: "anycast"
        case .multicast: "multicast"
        case .blackhole: "blackhole"
        case .unreachable: "unreachable"
        case .prohibit: "prohibit"
        case .throw: "throw"
        default: "type \(rawValue)"
        }
    }
}

/// Next-hop and route flags (`rtm_flags`, mirrors RTNH_F_* and RTM_F_*).
public struct RouteFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let dead = RouteFlags(rawValue: 1) // RTNH_F_DEAD
    public static let onLink = RouteFlags(rawValue: 4) // RTNH_F_ONLINK
    public static let linkDown = RouteFlags(rawValue: 16) // RTNH_F_LINKDOWN
}

/// The route attribute types reach reads or sends (`enum rtattr_type_t` in
/// <linux/rtnetlink.h>). Numbers, so the codec compiles without the C headers;
/// ReachCoreTests checks each against them.
enum RouteAttribute {
    static let destination: UInt16 = 1 // RTA_DST
    static let source: UInt16 = 2 // RTA_SRC
    static let outputInterface: UInt16 = 4 // RTA_OIF
    static let gateway: UInt16 = 5 // RTA_GATEWAY
    static let preferredSource: UInt16 = 7 // RTA_PREFSRC
    static let table: UInt16 = 15 // RTA_TABLE
    static let mark: UInt16 = 16 // RTA_MARK
    static let via: UInt16 = 18 // RTA_VIA
    static let uid: UInt16 = 25 // RTA_UID
}

/// What `ip route get` takes beside the destination to pick among policy routes
/// (ip-route(8) `from`, `oif`, `mark`, `uid`; the rules that match them: ip-rule(8)).
public struct RouteSelectors: Equatable, Sendable {
    /// The source address the packet would carry (RTA_SRC).
    public var source: IPAddress?
    /// The link the packet must leave through (RTA_OIF).
    public var outputInterface: UInt32?
    /// The firewall mark (RTA_MARK; SO_MARK on a socket).
    public var mark: UInt32?
    /// The user the packet is sent for (RTA_UID; `ip rule ... uidrange`).
    public var uid: UInt32?

    public init(source: IPAddress? = nil, outputInterface: UInt32? = nil, mark: UInt32? = nil, uid: UInt32? = nil) {
        self.source = source
        self.outputInterface = outputInterface
        self.mark = mark
        self.uid = uid
    }

    public static let none = RouteSelectors()
}

/// What RTM_GETROUTE answered with a route message.
public struct RouteAnswer: Equatable, Sendable {
    public var family: AddressFamily
    public var type: RouteType
    public var flags: RouteFlags
    public var table: UInt32
    public var outputInterface: UInt32?
    public var gateway: IPAddress?
    public var preferredSource: IPAddress?
    public var destination: IPAddress?

    public init(family: AddressFamily, type: RouteType, flags: RouteFlags = [], table: UInt32 = 254,
                outputInterface: UInt32? = nil, gateway: IPAddress? = nil,
                preferredSource: IPAddress? = nil, destination: IPAddress? = nil) {
        self.family = family
        self.type = type
        self.flags = flags
        self.table = table
        self.outputInterface = outputInterface
        self.gateway = gateway
        self.preferredSource = preferredSource
        self.destination = destination
    }
}

/// RTM_GETROUTE: encoding the request and decoding the kernel's route message.
public enum RouteMessage {
    public static let headerLength = 12 // struct rtmsg

    /// The payload (rtmsg + attributes) asking which route the kernel would pick
    /// for `destination`, optionally through interface `outputInterface` (an IPv6 zone).
    public static func lookupPayload(destination: IPAddress, outputInterface: UInt32? = nil) -> [UInt8] {
        lookupPayload(destination: destination, selectors: RouteSelectors(outputInterface: outputInterface))
    }

    /// The same with `ip route get`'s selectors, as iproute2's ip/iproute.c iproute_get
    /// sends them: `from` as RTA_SRC with rtm_src_len, then RTA_OIF, RTA_MARK, RTA_UID.
    public static func lookupPayload(destination: IPAddress, selectors: RouteSelectors) -> [UInt8] {
        var bytes: [UInt8] = []
        appendLookupPayload(destination: destination, selectors: selectors, to: &bytes)
        return bytes
    }

    /// The same payload, appended in place (a batch of requests is one array).
    static func appendLookupPayload(destination: IPAddress, selectors: RouteSelectors, to bytes: inout [UInt8]) {
        bytes.append(UInt8(destination.family.kernelValue))      // rtm_family
        bytes.append(destination.family.prefixLength)           // rtm_dst_len
        bytes.append(selectors.source?.family.prefixLength ?? 0) // rtm_src_len
        for _ in 0..<5 { bytes.append(0) }                      // rtm_tos, rtm_table, rtm_protocol, rtm_scope, rtm_type
        ByteOrder.appendHost(UInt32(0), to: &bytes)             // rtm_flags
        NetlinkAttribute.append(type: RouteAttribute.destination, value: destination.bytes, to: &bytes)
        if let source = selectors.source {
            NetlinkAttribute.append(type: RouteAttribute.source, value: source.bytes, to: &bytes)
        }
        if let outputInterface = selectors.outputInterface {
            NetlinkAttribute.append(type: RouteAttribute.outputInterface, hostValue: outputInterface, to: &bytes)
        }
        if let mark = selectors.mark { NetlinkAttribute.append(type: RouteAttribute.mark, hostValue: mark, to: &bytes) }
        if let uid = selectors.uid { NetlinkAttribute.append(type: RouteAttribute.uid, hostValue: uid, to: &bytes) }
    }

    /// Decodes an RTM_NEWROUTE payload. Unknown attributes are skipped.
    public static func decode(_ payload: ArraySlice<UInt8>) throws -> RouteAnswer {
        var repeated = RepeatedAddresses()
        return try decode(payload, reusing: &repeated)
    }

    /// The same, an address attribute equal to one of `repeated` answered with it.
    static func decode(_ payload: ArraySlice<UInt8>, reusing repeated: inout RepeatedAddresses) throws -> RouteAnswer {
        var reader = ByteReader(payload)
        let familyValue = try reader.readUInt8()
        guard let family = AddressFamily(kernelValue: Int32(familyValue)) else {
            throw ParseError(offset: 0, "route family \(familyValue) is neither IPv4 nor IPv6")
        }
        try reader.skip(3)                       // dst_len, src_len, tos
        let table = UInt32(try reader.readUInt8())
        try reader.skip(2)                       // protocol, scope
        let type = RouteType(rawValue: try reader.readUInt8())
        let flags = RouteFlags(rawValue: try reader.readHostUInt32())
        var answer = RouteAnswer(family: family, type: type, flags: flags, table: table)
        // A loop over where each attribute lies, not NetlinkAttribute.forEach: no closure, and
        // no slice of the datagram per attribute (a list decodes an answer per target).
        var attributes = ByteReader(payload.dropFirst(headerLength))
        while let (attribute, value) = try attributes.readAttribute() {
            let kind = attribute & 0x3fff  // without NLA_F_NESTED and NLA_F_NET_BYTEORDER
            switch kind {
            case RouteAttribute.outputInterface: answer.outputInterface = try NetlinkAttribute.uint32(payload, value, kind: kind)
            case RouteAttribute.gateway:
                answer.gateway = RepeatedAddresses.address(payload[value], family: family, known: &repeated.gateway)
            case RouteAttribute.preferredSource:
                answer.preferredSource = RepeatedAddresses.address(payload[value], family: family, known: &repeated.source)
            case RouteAttribute.destination:
                var asked = repeated.asked
                answer.destination = RepeatedAddresses.address(payload[value], family: family, known: &asked)
            case RouteAttribute.table: answer.table = try NetlinkAttribute.uint32(payload, value, kind: kind)
            case RouteAttribute.via:
                // struct rtvia: a 2-byte family, then the address (IPv4 routes via IPv6 next hops).
                var via = ByteReader(payload[value])
                let viaFamily = try via.readHostUInt16()
                if let nextHopFamily = AddressFamily(kernelValue: Int32(viaFamily)) {
                    answer.gateway = IPAddress(family: nextHopFamily, bytes: Array(via.bytes[via.offset...]))
                }
            default: break
            }
        }
        return answer
    }
}

/// Addresses that the answers to many lookups repeat: the destination asked (RTA_DST), and the
/// gateway and source of the answer before (one route serves thousands of destinations). An
/// attribute equal to one is answered with it, sharing its bytes, not with an array of its own.
struct RepeatedAddresses {
    var asked: IPAddress?
    var gateway: IPAddress?
    var source: IPAddress?

    /// The address `value` holds: `known` when equal (and without a zone, which an attribute
    /// never carries), else a new one, which becomes `known`.
    static func address(_ value: ArraySlice<UInt8>, family: AddressFamily, known: inout IPAddress?) -> IPAddress? {
        if let known, known.family == family, known.scopeID == 0, known.zone == nil,
            ByteComparison.equal(value, known.bytes) { return known }
        let made = IPAddress(family: family, bytes: Array(value))
        if made != nil { known = made }
        return made
    }
}

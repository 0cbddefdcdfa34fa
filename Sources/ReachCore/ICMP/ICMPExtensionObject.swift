import ReachSystem

/// One object of an ICMP extension structure (RFC 4884 section 8): the two kinds a router
/// on a trace sends, read into fields, and any other kept as its class, type and words.
public enum ICMPExtensionObject: Equatable, Sendable {
    /// Class 1, type 1 (RFC 4950 section 7): the MPLS label stack the probe arrived with.
    case mplsLabelStack([MPLSLabelStackEntry])
    /// Class 2 (RFC 5837 section 4): an interface of the router that answered.
    case interfaceInformation(InterfaceInformation)
    /// Anything else, or an object of those classes whose fields do not fit it.
    case other(classNumber: UInt8, classType: UInt8, data: [UInt8])

    /// Length (2 bytes, header included), class-num, c-type.
    public static let headerLength = 4
    static let mplsClass: UInt8 = 1
    static let mplsIncomingStackType: UInt8 = 1
    static let interfaceInformationClass: UInt8 = 2

    /// The object's class-num, as its header said.
    public var classNumber: UInt8 {
        switch self {
        case .mplsLabelStack: Self.mplsClass
        case .interfaceInformation: Self.interfaceInformationClass
        case .other(let classNumber, _, _): classNumber
        }
    }

    /// The object's c-type, as its header said.
    public var classType: UInt8 {
        switch self {
        case .mplsLabelStack: Self.mplsIncomingStackType
        case .interfaceInformation(let information): information.classType
        case .other(_, let classType, _): classType
        }
    }

    /// Reads one object at `reader`, which holds at least its header.
    static func read(_ reader: inout BigEndianReader) throws -> ICMPExtensionObject {
        let start = reader.relativeOffset
        let length = Int(try reader.readUInt16())
        let classNumber = try reader.readUInt8()
        let classType = try reader.readUInt8()
        guard length >= headerLength, length - headerLength <= reader.rest.count else {
            throw ParseError(offset: start, "extension object of \(length) bytes, \(reader.rest.count + headerLength) left")
        }
        guard length % 4 == 0 else { throw ParseError(offset: start, "extension object of \(length) bytes, not whole words") }
        let data = Array(reader.rest.prefix(length - headerLength))
        for _ in 0..<data.count { _ = try reader.readUInt8() }
        return decode(classNumber: classNumber, classType: classType, data: data)
    }

    /// The object's fields when its class is known and they fit, as traceroute's extension.c
    /// reads them (an empty label stack, or interface information it cannot print, stays raw).
    static func decode(classNumber: UInt8, classType: UInt8, data: [UInt8]) -> ICMPExtensionObject {
        if classNumber == mplsClass && classType == mplsIncomingStackType && !data.isEmpty {
            return .mplsLabelStack(stride(from: 0, to: data.count, by: 4).map { MPLSLabelStackEntry(word: word(data, at: $0)) })
        }
        if classNumber == interfaceInformationClass, let information = InterfaceInformation(classType: classType, data: data) {
            return .interfaceInformation(information)
        }
        return .other(classNumber: classNumber, classType: classType, data: data)
    }

    /// The big-endian 32-bit word at `offset`, which the caller has checked is inside `data`.
    static func word(_ data: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(data[offset + $1]) }
    }
}

/// One MPLS label stack entry (RFC 3032 section 2.1, quoted by RFC 4950 section 7): label
/// (20 bits), traffic class (3 bits, the experimental bits RFC 5462 renamed), bottom of
/// stack (1 bit), TTL (8 bits).
public struct MPLSLabelStackEntry: Equatable, Sendable {
    public var label: UInt32
    public var trafficClass: UInt8
    public var bottomOfStack: Bool
    public var ttl: UInt8

    public init(label: UInt32, trafficClass: UInt8, bottomOfStack: Bool, ttl: UInt8) {
        self.label = label
        self.trafficClass = trafficClass
        self.bottomOfStack = bottomOfStack
        self.ttl = ttl
    }

    public init(word: UInt32) {
        self.init(
            label: word >> 12, trafficClass: UInt8(truncatingIfNeeded: word >> 9) & 7, bottomOfStack: word >> 8 & 1 == 1,
            ttl: UInt8(truncatingIfNeeded: word))
    }
}

/// RFC 5837's interface information object: which interface of the answering router (its
/// role, from the c-type's two high bits) and what the router chose to say of it, each
/// field present when its c-type bit is set, in this order: ifIndex, IP address, name, MTU.
public struct InterfaceInformation: Equatable, Sendable {
    /// RFC 5837 section 4.1, the Interface Role field.
    public enum Role: UInt8, Sendable, CaseIterable {
        case incoming = 0
        case subIPComponent = 1
        case outgoing = 2
        case nextHop = 3
    }

    public var role: Role
    public var ifIndex: UInt32?
    public var address: IPAddress?
    /// The name's bytes (UTF-8 by RFC 5837 section 4.4, but bytes from the network), up to
    /// the first NUL of its padding.
    public var name: [UInt8]?
    public var mtu: UInt32?

    public init(role: Role, ifIndex: UInt32? = nil, address: IPAddress? = nil, name: [UInt8]? = nil, mtu: UInt32? = nil) {
        self.role = role
        self.ifIndex = ifIndex
        self.address = address
        self.name = name
        self.mtu = mtu
    }

    /// The c-type's bits (RFC 5837 section 4.1): role in bits 0-1, then two reserved bits,
    /// then ifIndex, IP address, name and MTU present.
    static let ifIndexBit: UInt8 = 0x08
    static let addressBit: UInt8 = 0x04
    static let nameBit: UInt8 = 0x02
    static let mtuBit: UInt8 = 0x01
    /// Sub-object limits: RFC 5837 section 4.4's name length octet (a multiple of 4, at most
    /// 64), and the 128 data bytes past which traceroute's extension.c prints the object raw.
    static let longestName = 64
    static let longestData = 128

    /// The c-type that announces these fields for this role.
    public var classType: UInt8 {
        var bits = role.rawValue << 6
        if ifIndex != nil { bits |= Self.ifIndexBit }
        if address != nil { bits |= Self.addressBit }
        if name != nil { bits |= Self.nameBit }
        if mtu != nil { bits |= Self.mtuBit }
        return bits
    }

    /// The fields `data` holds by `classType`, or nil when they overrun it, an address's
    /// AFI is neither 1 (IPv4) nor 2 (IPv6) (RFC 5837 section 4.2), or a name's length is 0,
    /// past 64 or not whole words (the cases traceroute's extension.c prints as raw words),
    /// or when the fields, written again, are not the bytes received (reserved bits set,
    /// bytes after the fields or after a name's NUL): so the object's words can always be
    /// printed from its fields, as traceroute 2.1.2 prints them.
    init?(classType: UInt8, data: [UInt8]) {
        guard data.count <= Self.longestData, let role = Role(rawValue: classType >> 6) else { return nil }
        self.init(role: role)
        var offset = 0
        func take(_ count: Int) -> Int? {
            guard count <= data.count - offset else { return nil }
            defer { offset += count }
            return offset
        }
        if classType & Self.ifIndexBit != 0 {
            guard let at = take(4) else { return nil }
            ifIndex = ICMPExtensionObject.word(data, at: at)
        }
        if classType & Self.addressBit != 0 {
            guard let at = take(4) else { return nil }
            let family: AddressFamily
            switch UInt16(data[at]) << 8 | UInt16(data[at + 1]) {
            case 1: family = .ipv4
            case 2: family = .ipv6
            default: return nil
            }
            guard let bytesAt = take(family.addressLength) else { return nil }
            address = IPAddress(family: family, bytes: Array(data[bytesAt..<bytesAt + family.addressLength]))
        }
        if classType & Self.nameBit != 0 {
            guard offset < data.count else { return nil }
            let length = Int(data[offset])
            guard length > 0, length % 4 == 0, length <= Self.longestName, let at = take(length) else { return nil }
            name = Array(data[(at + 1)..<(at + length)].prefix { $0 != 0 })
        }
        if classType & Self.mtuBit != 0 {
            guard let at = take(4) else { return nil }
            mtu = ICMPExtensionObject.word(data, at: at)
        }
        guard self.classType == classType, encodedData == data else { return nil }
    }
}

import ReachSystem

/// Netlink message flags (`nlmsg_flags`, mirrors NLM_F_* in <linux/netlink.h>).
public struct NetlinkMessageFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public static let request = NetlinkMessageFlags(rawValue: 1) // NLM_F_REQUEST
    public static let multi = NetlinkMessageFlags(rawValue: 2) // NLM_F_MULTI
    public static let acknowledge = NetlinkMessageFlags(rawValue: 4) // NLM_F_ACK
    public static let dumpInterrupted = NetlinkMessageFlags(rawValue: 16) // NLM_F_DUMP_INTR
    /// NLM_F_ROOT | NLM_F_MATCH.
    public static let dump = NetlinkMessageFlags(rawValue: 768) // NLM_F_DUMP
}

/// A netlink message type (`nlmsg_type`): the control types and the rtnetlink ones.
public struct NetlinkMessageType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public static let noop = NetlinkMessageType(rawValue: 1) // NLMSG_NOOP
    public static let error = NetlinkMessageType(rawValue: 2) // NLMSG_ERROR
    public static let done = NetlinkMessageType(rawValue: 3) // NLMSG_DONE
    public static let overrun = NetlinkMessageType(rawValue: 4) // NLMSG_OVERRUN
    public static let newLink = NetlinkMessageType(rawValue: 16) // RTM_NEWLINK
    public static let deleteLink = NetlinkMessageType(rawValue: 17) // RTM_DELLINK
    public static let getLink = NetlinkMessageType(rawValue: 18) // RTM_GETLINK
    public static let newAddress = NetlinkMessageType(rawValue: 20) // RTM_NEWADDR
    public static let deleteAddress = NetlinkMessageType(rawValue: 21) // RTM_DELADDR
    public static let newRoute = NetlinkMessageType(rawValue: 24) // RTM_NEWROUTE
    public static let deleteRoute = NetlinkMessageType(rawValue: 25) // RTM_DELROUTE
    public static let getRoute = NetlinkMessageType(rawValue: 26) // RTM_GETROUTE
    public static let newRule = NetlinkMessageType(rawValue: 32) // RTM_NEWRULE
    public static let deleteRule = NetlinkMessageType(rawValue: 33) // RTM_DELRULE
    public static let getRule = NetlinkMessageType(rawValue: 34) // RTM_GETRULE
    public var description: String { "\(rawValue)" }
}

/// One netlink message: the 16-byte `nlmsghdr` and its payload.
public struct NetlinkMessage: Equatable, Sendable {
    public static let headerLength = 16

    public var type: NetlinkMessageType
    public var flags: NetlinkMessageFlags
    public var sequence: UInt32
    public var portID: UInt32
    public var payload: ArraySlice<UInt8>

    public init(type: NetlinkMessageType, flags: NetlinkMessageFlags, sequence: UInt32, portID: UInt32 = 0, payload: ArraySlice<UInt8>) {
        self.type = type
        self.flags = flags
        self.sequence = sequence
        self.portID = portID
        self.payload = payload
    }

    /// The bytes of this message, header included, padded to 4 bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerLength + payload.count + 3)
        bytes += ByteOrder.encodeHost(UInt32(Self.headerLength + payload.count))
        bytes += ByteOrder.encodeHost(type.rawValue)
        bytes += ByteOrder.encodeHost(flags.rawValue)
        bytes += ByteOrder.encodeHost(sequence)
        bytes += ByteOrder.encodeHost(portID)
        bytes += payload
        bytes += [UInt8](repeating: 0, count: Netlink.alignmentPadding(bytes.count))
        return bytes
    }

    /// Appends a message to `bytes` (a batch of requests in one datagram), its payload written
    /// in place by `writePayload`: the same bytes as `encoded()`.
    public static func append(type: NetlinkMessageType, flags: NetlinkMessageFlags, sequence: UInt32, to bytes: inout [UInt8],
                              payload writePayload: (inout [UInt8]) -> Void) {
        let start = bytes.count
        ByteOrder.appendHost(UInt32(0), to: &bytes) // nlmsg_len, set below
        ByteOrder.appendHost(type.rawValue, to: &bytes)
        ByteOrder.appendHost(flags.rawValue, to: &bytes)
        ByteOrder.appendHost(sequence, to: &bytes)
        ByteOrder.appendHost(UInt32(0), to: &bytes) // nlmsg_pid
        writePayload(&bytes)
        let length = UInt32(bytes.count - start)
        for index in 0..<4 {
            #if _endian(little)
            bytes[start + index] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(index)))
            #else
            bytes[start + index] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(3 - index)))
            #endif
        }
        for _ in 0..<Netlink.alignmentPadding(Int(length)) { bytes.append(0) }
    }

    /// Splits one received datagram into its messages. Throws on a header that
    /// claims more bytes than arrived.
    public static func parseAll(_ datagram: [UInt8]) throws -> [NetlinkMessage] {
        var messages: [NetlinkMessage] = []
        try forEach(in: datagram[...]) { messages.append($0) }
        return messages
    }

    /// The same messages handed to `body` one by one, without an array of them (a list reads
    /// an answer per target), from a datagram that may be a slice of a larger buffer.
    public static func forEach(in datagram: ArraySlice<UInt8>, _ body: (NetlinkMessage) throws -> Void) throws {
        var reader = ByteReader(datagram)
        while reader.remaining >= headerLength {
            let start = reader.relativeOffset
            let length = Int(try reader.readHostUInt32())
            let type = NetlinkMessageType(rawValue: try reader.readHostUInt16())
            let flags = NetlinkMessageFlags(rawValue: try reader.readHostUInt16())
            let sequence = try reader.readHostUInt32()
            let portID = try reader.readHostUInt32()
            guard length >= headerLength, length - headerLength <= reader.remaining else {
                throw ParseError(offset: start, "message length \(length) does not fit the \(reader.remaining + headerLength) bytes left")
            }
            let payload = try reader.readBytes(length - headerLength)
            try body(NetlinkMessage(type: type, flags: flags, sequence: sequence, portID: portID, payload: payload))
            try reader.skip(min(Netlink.alignmentPadding(length), reader.remaining))
        }
        if reader.remaining > 0 {
            throw ParseError(offset: reader.relativeOffset, "\(reader.remaining) trailing bytes, less than a header")
        }
    }

    /// For NLMSG_ERROR: the (positive) errno, 0 for an acknowledgement.
    public func errorCode() throws -> Int32 {
        var reader = ByteReader(payload)
        let negative = try reader.readHostInt32()
        return negative == Int32.min ? Int32.max : -negative
    }
}

enum Netlink {
    static func alignmentPadding(_ length: Int) -> Int { (4 - length % 4) % 4 }
}

/// One route attribute (`struct rtattr` / `struct nlattr`): type and value.
public struct NetlinkAttribute: Equatable, Sendable {
    public var type: UInt16
    public var value: ArraySlice<UInt8>

    public init(type: UInt16, value: ArraySlice<UInt8>) {
        self.type = type
        self.value = value
    }

    public init(type: UInt16, bytes: [UInt8]) {
        self.init(type: type, value: bytes[...])
    }

    /// NLA_F_NESTED and NLA_F_NET_BYTEORDER are flag bits, not part of the type.
    public var kind: UInt16 { type & 0x3fff }

    /// Appends an attribute to `bytes`: the same bytes as `encoded()`.
    static func append(type: UInt16, value: [UInt8], to bytes: inout [UInt8]) {
        ByteOrder.appendHost(UInt16(4 + value.count), to: &bytes)
        ByteOrder.appendHost(type, to: &bytes)
        bytes += value
        for _ in 0..<Netlink.alignmentPadding(value.count) { bytes.append(0) }
    }

    /// Appends a 32-bit attribute in host order.
    static func append(type: UInt16, hostValue: UInt32, to bytes: inout [UInt8]) {
        ByteOrder.appendHost(UInt16(8), to: &bytes)
        ByteOrder.appendHost(type, to: &bytes)
        ByteOrder.appendHost(hostValue, to: &bytes)
    }

    public func encoded() -> [UInt8] {
        var bytes = ByteOrder.encodeHost(UInt16(4 + value.count)) + ByteOrder.encodeHost(type)
        bytes += value
        bytes += [UInt8](repeating: 0, count: Netlink.alignmentPadding(bytes.count))
        return bytes
    }

    /// Parses a run of attributes; a truncated last attribute is an error,
    /// unknown types are kept for the caller to skip.
    public static func parseAll(_ bytes: ArraySlice<UInt8>) throws -> [NetlinkAttribute] {
        var attributes: [NetlinkAttribute] = []
        try forEach(in: bytes) { attributes.append($0) }
        return attributes
    }

    /// The same attributes handed to `body` one by one, without an array of them (a list
    /// decodes a route answer per target).
    static func forEach(in bytes: ArraySlice<UInt8>, _ body: (NetlinkAttribute) throws -> Void) throws {
        var reader = ByteReader(bytes)
        while let (type, value) = try reader.readAttribute() {
            try body(NetlinkAttribute(type: type, value: bytes[value]))
        }
    }

    func uint32() throws -> UInt32 {
        try Self.uint32(value, value.indices, kind: kind)
    }

    /// The 32-bit value of attribute `kind` at `range` of `bytes`.
    static func uint32(_ bytes: ArraySlice<UInt8>, _ range: Range<Int>, kind: UInt16) throws -> UInt32 {
        guard range.count >= 4 else { throw ParseError(offset: 0, "attribute \(kind) holds \(range.count) bytes, need 4") }
        return UInt32(truncatingIfNeeded: ByteOrder.decodeHost(bytes, range.lowerBound..<range.lowerBound + 4))
    }

    func uint8() throws -> UInt8 {
        guard let first = value.first else { throw ParseError(offset: 0, "attribute \(kind) is empty") }
        return first
    }

    /// A NUL-terminated string attribute (IFLA_IFNAME, IFLA_INFO_KIND).
    func string() -> String {
        String(decoding: value.prefix { $0 != 0 }, as: UTF8.self)
    }

    func address(family: AddressFamily) -> IPAddress? {
        IPAddress(family: family, bytes: Array(value))
    }
}

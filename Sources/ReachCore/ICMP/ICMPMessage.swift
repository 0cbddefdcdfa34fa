/// An ICMP / ICMPv6 message as a pinger sees it: built for sending, parsed from what a
/// socket delivers. Pure values: no sockets here.
public struct ICMPMessage: Equatable, Sendable {
    public var type: ICMPType
    public var code: UInt8
    /// The checksum as it came (or as built).
    public var checksum: UInt16
    public var body: Body
    /// The IPv4 header's TTL when the datagram carried one (raw IPv4 sockets).
    public var ipTTL: UInt8?
    /// The IPv4 header's source when the datagram carried one and is an error.
    public var ipSource: IPAddress?
    /// Whether the ICMP checksum verifies; nil where it cannot be checked here (ICMPv6
    /// needs the pseudo-header, and the kernel verifies it before delivery).
    public var checksumValid: Bool?
    /// Length of the ICMP message in bytes (header and data), as iputils prints it.
    public var length: Int

    public enum Body: Equatable, Sendable {
        /// Echo request or reply.
        case echo(identifier: UInt16, sequence: UInt16, payload: ArraySlice<UInt8>)
        /// An error message quoting the datagram that caused it; the quoted echo's
        /// identifier and sequence when the quote holds an echo request.
        case error(info: UInt32, quotedDestination: IPAddress?, quotedEcho: (identifier: UInt16, sequence: UInt16)?)
        /// Anything else (router advertisements, neighbour discovery on raw v6 sockets, ...).
        case other

        public static func == (lhs: Body, rhs: Body) -> Bool {
            switch (lhs, rhs) {
            case (.echo(let a, let b, let c), .echo(let d, let e, let f)): return a == d && b == e && c == f
            case (.error(let a, let b, let c), .error(let d, let e, let f)):
                return a == d && b == e && c?.identifier == f?.identifier && c?.sequence == f?.sequence
            case (.other, .other): return true
            default: return false
            }
        }
    }
}

/// Builds and parses ICMP messages for one family.
public struct ICMPCodec: Sendable {
    public let family: any ICMPFamily
    public init(family: any ICMPFamily) { self.family = family }

    /// The ICMP header: type, code, checksum, identifier, sequence.
    public static let headerLength = 8

    /// The payload iputils sends: byte i is i (mod 256), so a reply's data can be checked.
    public static func standardPayload(size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0) }
    }

    /// An echo request. The IPv4 checksum is filled in (a raw socket sends it as is);
    /// for ICMPv6 the kernel computes it (it needs the pseudo-header), and a datagram
    /// socket recomputes both and rewrites the identifier.
    public func echoRequest(identifier: UInt16, sequence: UInt16, payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [
            family.echoRequest.rawValue, 0, 0, 0,
            UInt8(identifier >> 8), UInt8(identifier & 0xff),
            UInt8(sequence >> 8), UInt8(sequence & 0xff),
        ]
        bytes.reserveCapacity(Self.headerLength + payload.count)
        bytes.append(contentsOf: payload)
        if family.addressFamily == .ipv4 {
            let sum = Self.checksum(bytes[...])
            bytes[2] = UInt8(sum >> 8)
            bytes[3] = UInt8(sum & 0xff)
        }
        return bytes
    }

    /// `template` (an echo request built with sequence 0) with `sequence` filled in and the
    /// IPv4 checksum updated incrementally (RFC 1624: HC' = ~(~HC + m'), the old field being 0).
    public func echoRequest(template: [UInt8], sequence: UInt16) -> [UInt8] {
        var bytes = template
        guard bytes.count >= Self.headerLength else { return bytes }
        bytes[6] = UInt8(sequence >> 8)
        bytes[7] = UInt8(sequence & 0xff)
        if family.addressFamily == .ipv4 {
            var sum = UInt32(~(UInt16(bytes[2]) << 8 | UInt16(bytes[3]))) + UInt32(sequence)
            while sum >> 16 != 0 { sum = (sum & 0xffff) + (sum >> 16) }
            let checksum = ~UInt16(truncatingIfNeeded: sum)
            bytes[2] = UInt8(checksum >> 8)
            bytes[3] = UInt8(checksum & 0xff)
        }
        return bytes
    }

    /// The Internet checksum (RFC 1071) of `bytes`; over a message whose checksum field
    /// is filled in, it is 0 when the message is intact.
    public static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        // Iterating the slice (no per-byte bounds checks) keeps a flood's per-echo cost low.
        var sum: UInt32 = 0
        var high = true
        for byte in bytes {
            sum &+= high ? UInt32(byte) << 8 : UInt32(byte)
            high.toggle()
        }
        while sum >> 16 != 0 { sum = (sum & 0xffff) + (sum >> 16) }
        return ~UInt16(truncatingIfNeeded: sum)
    }

    /// Parses what a socket delivered. `includesIPHeader`: the datagram starts with an
    /// IPv4 header (raw IPv4 sockets), stripped by its IHL. Never traps: truncated or
    /// malformed input throws a ParseError naming the offset.
    public func parse(_ datagram: [UInt8], includesIPHeader: Bool) throws -> ICMPMessage {
        var start = 0
        var ttl: UInt8?
        var source: IPAddress?
        if includesIPHeader {
            start = try IPv4Header.headerLength(datagram[...])
            ttl = IPv4Header.ttl(datagram[...])
        }
        var reader = BigEndianReader(datagram[start...])
        let type = ICMPType(try reader.readUInt8())
        let code = try reader.readUInt8()
        let checksum = try reader.readUInt16()
        let checksumValid: Bool? = family.addressFamily == .ipv4 ? Self.checksum(datagram[start...]) == 0 : nil
        let length = datagram.count - start
        let body: ICMPMessage.Body
        if type == family.echoReply || type == family.echoRequest {
            let identifier = try reader.readUInt16()
            let sequence = try reader.readUInt16()
            body = .echo(identifier: identifier, sequence: sequence, payload: reader.rest)
        } else if family.isError(type) {
            let info = try reader.readUInt32()
            body = try parseQuote(reader, info: info, offset: start)
            // Who sent an error matters (a router); for a reply the socket's address says it.
            if includesIPHeader { source = IPv4Header.source(datagram[...]) }
        } else {
            body = .other
        }
        return ICMPMessage(
            type: type, code: code, checksum: checksum, body: body, ipTTL: ttl, ipSource: source,
            checksumValid: checksumValid, length: length)
    }

    /// The quoted datagram: its IP header (any IHL for IPv4), then at least the first
    /// 8 bytes of its payload (RFC 792), which for our probe is the echo header.
    private func parseQuote(_ reader: BigEndianReader, info: UInt32, offset: Int) throws -> ICMPMessage.Body {
        let quoted = reader.rest
        let headerLength: Int
        do {
            headerLength = try family.quotedHeaderLength(quoted)
        } catch let error as ParseError {
            throw ParseError(offset: offset + reader.relativeOffset + error.offset, "quoted header: \(error.what)")
        }
        let destination = family.quotedDestination(quoted)
        let inner = quoted.dropFirst(headerLength)
        let icmpProtocol: UInt8 = family.addressFamily == .ipv4 ? 1 : 58
        guard family.quotedProtocol(quoted) == icmpProtocol, inner.count >= 8,
            inner[inner.startIndex] == family.echoRequest.rawValue
        else {
            return .error(info: info, quotedDestination: destination, quotedEcho: nil)
        }
        var echo = BigEndianReader(inner.dropFirst(4))
        let identifier = try echo.readUInt16()
        let sequence = try echo.readUInt16()
        return .error(info: info, quotedDestination: destination, quotedEcho: (identifier, sequence))
    }
}

/// Bounds-checked reads of network-order integers; never traps.
struct BigEndianReader {
    private var inner: ByteReader
    init(_ bytes: ArraySlice<UInt8>) { inner = ByteReader(bytes) }

    var relativeOffset: Int { inner.relativeOffset }
    var rest: ArraySlice<UInt8> { inner.bytes[inner.offset...] }

    mutating func readUInt8() throws -> UInt8 { try inner.readUInt8() }
    mutating func readUInt16() throws -> UInt16 { UInt16(ByteOrder.decodeBig(try inner.readBytes(2))) }
    mutating func readUInt32() throws -> UInt32 { UInt32(ByteOrder.decodeBig(try inner.readBytes(4))) }
}

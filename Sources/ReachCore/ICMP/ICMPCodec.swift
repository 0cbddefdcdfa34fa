import ReachSystem

/// Builds and parses ICMP messages for one family.
public struct ICMPCodec: Sendable {
    public let family: any ICMPFamily
    // The family's facts that every datagram needs, read once: through the existential
    // each is a witness call, and a flood parses a datagram per echo.
    let checksumCoversMessageOnly: Bool
    private let protocolNumber: UInt8
    let echoRequestType: ICMPType
    let echoReplyType: ICMPType

    public init(family: any ICMPFamily) {
        self.family = family
        checksumCoversMessageOnly = family.checksumCoversMessageOnly
        protocolNumber = family.protocolNumber
        echoRequestType = family.echoRequest
        echoReplyType = family.echoReply
    }

    /// The ICMP header: type, code, checksum, identifier, sequence.
    public static let headerLength = 8

    /// The payload iputils sends: byte i is i (mod 256), so a reply's data can be checked.
    public static func standardPayload(size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0) }
    }

    /// `size` bytes of `pattern` repeated from the first data byte, as iputils -p fills them
    /// (ping_common.c fill); the standard payload when `pattern` is empty.
    public static func payload(size: Int, pattern: [UInt8]) -> [UInt8] {
        guard !pattern.isEmpty else { return standardPayload(size: size) }
        return (0..<size).map { pattern[$0 % pattern.count] }
    }

    /// An echo request. The IPv4 checksum is filled in (a raw socket sends it as is);
    /// for ICMPv6 the kernel computes it (it needs the pseudo-header), and a datagram
    /// socket recomputes both and rewrites the identifier.
    public func echoRequest(identifier: UInt16, sequence: UInt16, payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [
            echoRequestType.rawValue, 0, 0, 0,
            UInt8(identifier >> 8), UInt8(identifier & 0xff),
            UInt8(sequence >> 8), UInt8(sequence & 0xff),
        ]
        bytes.reserveCapacity(Self.headerLength + payload.count)
        bytes.append(contentsOf: payload)
        if checksumCoversMessageOnly {
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
        setSequence(sequence, in: &bytes, templateChecksum: UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
        return bytes
    }

    /// Writes `sequence` into an echo request in place, and the IPv4 checksum computed from
    /// `templateChecksum`, the checksum the request had with sequence 0. The engine patches
    /// one array per probe this way: a flood sends a probe per echo, and a new array each
    /// time would be an allocation each time.
    public func setSequence(_ sequence: UInt16, in bytes: inout [UInt8], templateChecksum: UInt16) {
        guard bytes.count >= Self.headerLength else { return }
        bytes[6] = UInt8(sequence >> 8)
        bytes[7] = UInt8(sequence & 0xff)
        if checksumCoversMessageOnly {
            var sum = UInt32(~templateChecksum) + UInt32(sequence)
            while sum >> 16 != 0 { sum = (sum & 0xffff) + (sum >> 16) }
            let checksum = ~UInt16(truncatingIfNeeded: sum)
            bytes[2] = UInt8(checksum >> 8)
            bytes[3] = UInt8(checksum & 0xff)
        }
    }

    /// The Internet checksum (RFC 1071) of `bytes`; over a message whose checksum field
    /// is filled in, it is 0 when the message is intact.
    public static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        checksum(wordSum: wordSum(bytes))
    }

    /// The checksum from a sum of 16-bit words, carries folded in. Sums of the parts of a
    /// message add up, when each part but the last has an even length.
    public static func checksum(wordSum: UInt32) -> UInt16 {
        var sum = wordSum
        while sum >> 16 != 0 { sum = (sum & 0xffff) + (sum >> 16) }
        return ~UInt16(truncatingIfNeeded: sum)
    }

    /// The sum of `bytes` as big-endian 16-bit words, a last odd byte as a high byte. It does
    /// not overflow for an IP datagram: 32,768 × 65,535 < 2^32.
    public static func wordSum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        // Iterating the slice (no per-byte bounds checks) keeps a flood's per-echo cost low.
        var sum: UInt32 = 0
        var high = true
        for byte in bytes {
            sum &+= high ? UInt32(byte) << 8 : UInt32(byte)
            high.toggle()
        }
        return sum
    }

    /// An echo request or reply read in place: its header fields, its length and IPv4 TTL
    /// as `parse` gives them, and where its data starts.
    public struct Echo: Equatable, Sendable {
        public var type: ICMPType
        public var code: UInt8
        public var checksum: UInt16
        public var identifier: UInt16
        public var sequence: UInt16
        /// ICMP bytes (header and data).
        public var length: Int
        public var ipTTL: UInt8?
        /// The index in the datagram where the echo's data starts.
        public var dataStart: Int
    }

    /// The echo a datagram holds; nil when it holds anything else or is malformed (`parse`
    /// says what). A flood reads one reply per echo: this reads it in place and builds
    /// nothing that holds a reference, where an ICMPMessage (optional addresses, an enum
    /// body) is copied and destroyed through value witnesses.
    public func echo(in datagram: ArraySlice<UInt8>, includesIPHeader: Bool) -> Echo? {
        var start = datagram.startIndex
        var ttl: UInt8?
        if includesIPHeader {
            guard let length = IPv4Header.validHeaderLength(datagram) else { return nil }
            start += length
            ttl = IPv4Header.ttl(datagram)
        }
        guard datagram.endIndex - start >= Self.headerLength else { return nil }
        let type = ICMPType(datagram[start])
        guard type == echoReplyType || type == echoRequestType else { return nil }
        func word(at offset: Int) -> UInt16 { UInt16(datagram[start + offset]) << 8 | UInt16(datagram[start + offset + 1]) }
        return Echo(
            type: type, code: datagram[start + 1], checksum: word(at: 2), identifier: word(at: 4), sequence: word(at: 6),
            length: datagram.endIndex - start, ipTTL: ttl, dataStart: start + Self.headerLength)
    }

    /// Whether the checksum of `echo`, read from `datagram`, verifies; nil for ICMPv6 (it
    /// needs the pseudo-header, and the kernel verifies it before delivery). `dataWordSum`:
    /// the `wordSum` of the echo's data when the caller knows it (the data is what it sent,
    /// summed once), so that only the header fields `echo` holds are added, per reply in a
    /// flood.
    public func checksumValid(of echo: Echo, in datagram: ArraySlice<UInt8>, dataWordSum: UInt32? = nil) -> Bool? {
        checksumCoversMessageOnly ? Self.checksumVerifies(echo, in: datagram, dataWordSum: dataWordSum) : nil
    }

    /// `checksumValid` for an IPv4 echo, static: the engine calls it per reply without
    /// copying the codec (its family existential is copied through value witnesses).
    public static func checksumVerifies(_ echo: Echo, in datagram: ArraySlice<UInt8>, dataWordSum: UInt32?) -> Bool {
        guard let dataWordSum else { return checksum(datagram[(echo.dataStart - headerLength)...]) == 0 }
        // The header's four words: type and code, then the three fields read already.
        let typeAndCode = UInt32(echo.type.rawValue) << 8 | UInt32(echo.code)
        let header = typeAndCode &+ UInt32(echo.checksum) &+ UInt32(echo.identifier) &+ UInt32(echo.sequence)
        return checksum(wordSum: header &+ dataWordSum) == 0
    }

    /// Parses what a socket delivered. `includesIPHeader`: the datagram starts with an
    /// IPv4 header (raw IPv4 sockets), stripped by its IHL. Never traps: truncated or
    /// malformed input throws a ParseError naming the offset.
    public func parse(_ datagram: [UInt8], includesIPHeader: Bool) throws -> ICMPMessage {
        try parse(datagram[...], includesIPHeader: includesIPHeader)
    }

    /// `parse` of a slice, such as a socket's receive buffer cut to the datagram's length.
    /// Offsets in errors count from the slice's start.
    public func parse(_ datagram: ArraySlice<UInt8>, includesIPHeader: Bool) throws -> ICMPMessage {
        if let echo = echo(in: datagram, includesIPHeader: includesIPHeader) {
            return ICMPMessage(
                type: echo.type, code: echo.code, checksum: echo.checksum,
                body: .echo(identifier: echo.identifier, sequence: echo.sequence, payload: datagram[echo.dataStart...]),
                ipTTL: echo.ipTTL, ipSource: nil, checksumValid: checksumValid(of: echo, in: datagram), length: echo.length)
        }
        var start = datagram.startIndex
        var ttl: UInt8?
        var source: IPAddress?
        if includesIPHeader {
            start += try IPv4Header.headerLength(datagram)
            ttl = IPv4Header.ttl(datagram)
        }
        var reader = BigEndianReader(datagram[start...])
        let type = ICMPType(try reader.readUInt8())
        let code = try reader.readUInt8()
        let checksum = try reader.readUInt16()
        let checksumValid: Bool? = checksumCoversMessageOnly ? Self.checksum(datagram[start...]) == 0 : nil
        let length = datagram.endIndex - start
        let body: ICMPMessage.Body
        if type == echoReplyType || type == echoRequestType {
            // A whole echo was read by `echo(in:)`: this one is cut short, and throws where.
            let identifier = try reader.readUInt16()
            let sequence = try reader.readUInt16()
            body = .echo(identifier: identifier, sequence: sequence, payload: reader.rest)
        } else if family.isError(type) {
            let info = try reader.readUInt32()
            body = try parseQuote(reader, info: info, offset: start - datagram.startIndex)
            // Who sent an error matters (a router); for a reply the socket's address says it.
            if includesIPHeader { source = IPv4Header.source(datagram) }
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
        guard family.quotedProtocol(quoted) == protocolNumber, inner.count >= Self.headerLength,
            inner[inner.startIndex] == echoRequestType.rawValue
        else {
            return .error(info: info, quotedDestination: destination, quotedEcho: nil)
        }
        var echo = BigEndianReader(inner.dropFirst(4))
        let identifier = try echo.readUInt16()
        let sequence = try echo.readUInt16()
        return .error(info: info, quotedDestination: destination, quotedEcho: (identifier, sequence))
    }
}

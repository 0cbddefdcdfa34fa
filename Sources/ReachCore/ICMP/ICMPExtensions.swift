import ReachSystem

/// The ICMP extension structure of a multi-part message (RFC 4884 section 7): a header
/// (version 2, a checksum) and one or more objects, each with its length, class and type,
/// appended after the original datagram of a time exceeded, destination unreachable or
/// (ICMPv4) parameter problem. Routers put MPLS label stacks (RFC 4950) and interface
/// information (RFC 5837) there. Pure values: the parser never traps.
public struct ICMPExtensions: Equatable, Sendable {
    public var objects: [ICMPExtensionObject]

    public init(objects: [ICMPExtensionObject]) { self.objects = objects }

    /// RFC 4884 section 7: the header's version.
    public static let version: UInt8 = 2
    /// The extension header and an object header: the least a structure holds (RFC 4884
    /// section 7 wants one object or more; traceroute's extension.c checks for 8 bytes).
    public static let smallestStructure = 8
    /// RFC 4884 sections 4.1 and 4.2: with extensions, the original datagram field holds at
    /// least 128 bytes; a sender that predates the length attribute always used 128 (section 5).
    public static let originalDatagramLength = 128

    /// A whole structure, header first, filling `bytes` exactly. Refused as traceroute 2.1.2's
    /// extension.c refuses one (try_extension): another version, a checksum set that does not
    /// verify (an unset one, zero, is taken), an object shorter than its header, longer than
    /// what is left or not a multiple of 4 bytes, bytes left over after the last object.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws -> ICMPExtensions {
        guard bytes.count >= smallestStructure else {
            throw ParseError(offset: 0, "an extension structure of \(bytes.count) bytes, fewer than \(smallestStructure)")
        }
        var reader = BigEndianReader(bytes)
        let version = try reader.readUInt8() >> 4
        guard version == Self.version else { throw ParseError(offset: 0, "extension version \(version), not \(Self.version)") }
        _ = try reader.readUInt8()
        let checksum = try reader.readUInt16()
        guard checksum == 0 || ICMPCodec.checksum(bytes) == 0 else {
            throw ParseError(offset: 2, "extension checksum \(checksum) does not verify")
        }
        var objects: [ICMPExtensionObject] = []
        while reader.rest.count >= ICMPExtensionObject.headerLength {
            objects.append(try ICMPExtensionObject.read(&reader))
        }
        guard reader.rest.isEmpty else {
            throw ParseError(offset: reader.relativeOffset, "\(reader.rest.count) bytes after the last extension object")
        }
        return ICMPExtensions(objects: objects)
    }

    /// The extensions of a whole ICMP message (its header first, as a raw socket delivers
    /// it past the IP header), or nil when it has none or they do not parse. Where the
    /// original datagram ends: the length attribute (RFC 4884 sections 4.1 and 4.2, in the
    /// family's words), or, when it is zero, 128 bytes in, where senders that predate it put
    /// the structure (RFC 4884 section 5, as traceroute looks for it).
    public static func inMessage(_ message: ArraySlice<UInt8>, layout: ICMPMultipartLayout) -> ICMPExtensions? {
        let header = ICMPCodec.headerLength
        guard message.count >= header, layout.carriesExtensions(ICMPType(message[message.startIndex])) else { return nil }
        let words = Int(message[message.startIndex + layout.lengthOffset])
        let original = words == 0 ? originalDatagramLength : words * layout.lengthUnit
        guard original >= originalDatagramLength, message.count - header - original >= smallestStructure else { return nil }
        return try? parse(message.dropFirst(header + original))
    }

    /// The extensions in what an error queue returns for a probe (MSG_ERRQUEUE): the kernel
    /// hands the quoted datagram from past the headers it strips (`strippedHeaders`: the IP
    /// header, and the UDP one for a UDP socket) to the end of the ICMP message
    /// (ip_icmp_error in net/ipv4/ip_sockglue.c), so the structure starts where the
    /// 128-byte original datagram ends (`kernelOffset`: IP_RECVERR_RFC4884's offset, when
    /// the kernel read the length attribute). `probeData`: the bytes the probe carried past
    /// those headers. As traceroute 2.1.2 (recv_reply in traceroute.c): when more came back
    /// than the probe held, the structure is at 128; when not, the quote was cut and the
    /// structure is looked for at each word from there (the family's `lengthUnit`).
    public static func inQueuedError(
        _ data: ArraySlice<UInt8>, strippedHeaders: Int, probeData: Int, layout: ICMPMultipartLayout, kernelOffset: Int? = nil
    ) -> ICMPExtensions? {
        if let kernelOffset, kernelOffset >= 0, kernelOffset <= data.count {
            return try? parse(data.dropFirst(kernelOffset))
        }
        guard strippedHeaders <= originalDatagramLength, strippedHeaders + data.count >= originalDatagramLength + smallestStructure
        else { return nil }
        var start = originalDatagramLength - strippedHeaders
        if data.count > probeData { return try? parse(data.dropFirst(start)) }
        while data.count - start >= smallestStructure {
            if let found = try? parse(data.dropFirst(start)) { return found }
            start += layout.lengthUnit
        }
        return nil
    }
}

/// Where one family's multi-part messages keep RFC 4884's length attribute, in which words,
/// and which of its errors may carry extensions.
public struct ICMPMultipartLayout: Equatable, Sendable {
    /// The attribute's byte in the ICMP header: the sixth for ICMPv4, the fifth for ICMPv6.
    public var lengthOffset: Int
    /// The original datagram's length in bytes per unit of the attribute: 32-bit words for
    /// ICMPv4, 64-bit words for ICMPv6.
    public var lengthUnit: Int
    /// The message types an extension structure may follow (RFC 4884 section 4.6).
    public var types: [ICMPType]

    public func carriesExtensions(_ type: ICMPType) -> Bool { types.contains(type) }
}

extension ICMPv4 {
    /// RFC 4884 section 4.1: destination unreachable (3), time exceeded (11), parameter problem (12).
    public var multipartLayout: ICMPMultipartLayout {
        ICMPMultipartLayout(lengthOffset: 5, lengthUnit: 4, types: [Self.destinationUnreachable, Self.timeExceeded, Self.parameterProblem])
    }
}

extension ICMPv6 {
    /// RFC 4884 section 4.2: destination unreachable (1), time exceeded (3).
    public var multipartLayout: ICMPMultipartLayout {
        ICMPMultipartLayout(lengthOffset: 4, lengthUnit: 8, types: [Self.destinationUnreachable, Self.timeExceeded])
    }
}

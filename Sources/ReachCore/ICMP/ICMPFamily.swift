import ReachSystem

/// What differs between ICMP (RFC 792) and ICMPv6 (RFC 4443) for a pinger. IPv4 and
/// IPv6 are two conformances of this one protocol; the codec and the engine ask it,
/// instead of testing the family everywhere.
public protocol ICMPFamily: Sendable {
    var addressFamily: AddressFamily { get }
    /// ICMP_ECHO (8) / ICMP6_ECHO_REQUEST (128).
    var echoRequest: ICMPType { get }
    /// ICMP_ECHOREPLY (0) / ICMP6_ECHO_REPLY (129).
    var echoReply: ICMPType { get }
    /// The error messages that quote the datagram that caused them.
    func isError(_ type: ICMPType) -> Bool
    /// The fixed header length of the IP datagram an error quotes, read from its first
    /// bytes (IPv4: IHL × 4, any IHL; IPv6: 40 with no extension headers followed).
    func quotedHeaderLength(_ quoted: ArraySlice<UInt8>) throws -> Int
    /// The protocol number of ICMP inside the quoted header, to check the quote is an echo.
    func quotedProtocol(_ quoted: ArraySlice<UInt8>) -> UInt8?
    /// The destination address inside a quoted IP header.
    func quotedDestination(_ quoted: ArraySlice<UInt8>) -> IPAddress?
    /// The IP protocol number of this ICMP (IPPROTO_ICMP 1, IPPROTO_ICMPV6 58), as a
    /// quoted header names it.
    var protocolNumber: UInt8 { get }
    /// Whether the checksum covers the ICMP message alone, so that the sender fills it in
    /// and a receiver can verify it (RFC 792). ICMPv6's also covers a pseudo-header of the
    /// IPv6 addresses (RFC 4443 section 2.3), which the kernel fills in and verifies.
    var checksumCoversMessageOnly: Bool { get }
    /// The iputils wording of an ICMP message: "Destination Host Unreachable", "Time to live exceeded".
    func describe(type: ICMPType, code: UInt8, info: UInt32) -> String
    /// The IP header without options, counted in iputils' "56(84) bytes" header line.
    var ipHeaderLength: Int { get }
    /// The most echo data one datagram carries (iputils' -s limit): an IPv4 datagram's
    /// total length (RFC 791) and an IPv6 payload's length (RFC 8200) are 16-bit fields.
    var largestEchoData: Int { get }
    /// Where RFC 4884's length attribute sits and which errors carry extensions.
    var multipartLayout: ICMPMultipartLayout { get }
}

/// An ICMP or ICMPv6 message type (mirrors `<netinet/ip_icmp.h>` / `<netinet/icmp6.h>`);
/// an unknown type survives as its number.
public struct ICMPType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }
}

extension ICMPFamily where Self == ICMPv4 {
    public static var v4: ICMPv4 { ICMPv4() }
}

extension ICMPFamily where Self == ICMPv6 {
    public static var v6: ICMPv6 { ICMPv6() }
}

/// The family's conformance for an address family.
public func icmpFamily(for family: AddressFamily) -> any ICMPFamily {
    switch family {
    case .ipv4: ICMPv4()
    case .ipv6: ICMPv6()
    }
}

/// ICMP for IPv4 (RFC 792).
public struct ICMPv4: ICMPFamily {
    public init() {}
    public var addressFamily: AddressFamily { .ipv4 }
    public var echoRequest: ICMPType { ICMPType(8) }
    public var echoReply: ICMPType { ICMPType(0) }
    public var protocolNumber: UInt8 { 1 }
    public var checksumCoversMessageOnly: Bool { true }
    public var ipHeaderLength: Int { 20 }
    /// 65,535 less the IPv4 header (its length counts in the total) and the ICMP header.
    public var largestEchoData: Int { 65_535 - ipHeaderLength - ICMPCodec.headerLength }

    public static let destinationUnreachable = ICMPType(3)
    public static let sourceQuench = ICMPType(4)
    public static let redirect = ICMPType(5)
    public static let timeExceeded = ICMPType(11)
    public static let parameterProblem = ICMPType(12)

    public func isError(_ type: ICMPType) -> Bool {
        [Self.destinationUnreachable, Self.sourceQuench, Self.redirect, Self.timeExceeded, Self.parameterProblem].contains(type)
    }

    public func quotedHeaderLength(_ quoted: ArraySlice<UInt8>) throws -> Int {
        try IPv4Header.headerLength(quoted)
    }

    public func quotedProtocol(_ quoted: ArraySlice<UInt8>) -> UInt8? {
        quoted.count > 9 ? quoted[quoted.startIndex + 9] : nil
    }

    public func quotedDestination(_ quoted: ArraySlice<UInt8>) -> IPAddress? {
        guard quoted.count >= 20 else { return nil }
        return IPAddress(family: .ipv4, bytes: Array(quoted[(quoted.startIndex + 16)..<(quoted.startIndex + 20)]))
    }

    // iputils ping/ping.c pr_icmph, word for word, so scripts that match these lines keep working.
    public func describe(type: ICMPType, code: UInt8, info: UInt32) -> String {
        switch type {
        case echoReply: return "Echo Reply"
        case Self.destinationUnreachable:
            let texts = [
                "Destination Net Unreachable", "Destination Host Unreachable", "Destination Protocol Unreachable",
                "Destination Port Unreachable", "Frag needed and DF set (mtu = \(info))", "Source Route Failed",
                "Destination Net Unknown", "Destination Host Unknown", "Source Host Isolated",
                "Destination Net Prohibited", "Destination Host Prohibited",
                "Destination Net Unreachable for Type of Service", "Destination Host Unreachable for Type of Service",
                "Packet filtered", "Precedence Violation", "Precedence Cutoff",
            ]
            return Int(code) < texts.count ? texts[Int(code)] : "Dest Unreachable, Bad Code: \(code)"
        case Self.sourceQuench: return "Source Quench"
        case Self.redirect:
            let texts = ["Redirect Network", "Redirect Host", "Redirect Type of Service and Network", "Redirect Type of Service and Host"]
            return Int(code) < texts.count ? texts[Int(code)] : "Redirect, Bad Code: \(code)"
        case echoRequest: return "Echo Request"
        case Self.timeExceeded:
            switch code {
            case 0: return "Time to live exceeded"
            case 1: return "Frag reassembly time exceeded"
            default: return "Time exceeded, Bad Code: \(code)"
            }
        case Self.parameterProblem: return "Parameter problem: pointer = \(info >> 24)"
        default: return "Bad ICMP type: \(type.rawValue)"
        }
    }
}

/// ICMPv6 (RFC 4443).
public struct ICMPv6: ICMPFamily {
    public init() {}
    public var addressFamily: AddressFamily { .ipv6 }
    public var echoRequest: ICMPType { ICMPType(128) }
    public var echoReply: ICMPType { ICMPType(129) }
    public var protocolNumber: UInt8 { 58 }
    public var checksumCoversMessageOnly: Bool { false }
    public var ipHeaderLength: Int { 40 }
    /// 65,535 less the ICMPv6 header: the IPv6 header is not in the payload length.
    public var largestEchoData: Int { 65_535 - ICMPCodec.headerLength }

    public static let destinationUnreachable = ICMPType(1)
    public static let packetTooBig = ICMPType(2)
    public static let timeExceeded = ICMPType(3)
    public static let parameterProblem = ICMPType(4)

    public func isError(_ type: ICMPType) -> Bool { type.rawValue < 128 }

    public func quotedHeaderLength(_ quoted: ArraySlice<UInt8>) throws -> Int {
        guard quoted.count >= 40 else { throw ParseError(offset: 0, "quoted IPv6 header needs 40 bytes, have \(quoted.count)") }
        guard quoted[quoted.startIndex] >> 4 == 6 else { throw ParseError(offset: 0, "quoted header is not IPv6") }
        return 40
    }

    public func quotedProtocol(_ quoted: ArraySlice<UInt8>) -> UInt8? {
        quoted.count > 6 ? quoted[quoted.startIndex + 6] : nil
    }

    public func quotedDestination(_ quoted: ArraySlice<UInt8>) -> IPAddress? {
        guard quoted.count >= 40 else { return nil }
        return IPAddress(family: .ipv6, bytes: Array(quoted[(quoted.startIndex + 24)..<(quoted.startIndex + 40)]))
    }

    // iputils ping/ping6_common.c pr_icmph.
    public func describe(type: ICMPType, code: UInt8, info: UInt32) -> String {
        switch type {
        case Self.destinationUnreachable:
            let texts = [
                "No route", "Administratively prohibited", "Beyond scope of source address",
                "Address unreachable", "Port unreachable",
            ]
            return "Destination unreachable: " + (Int(code) < texts.count ? texts[Int(code)] : "Unknown code \(code)")
        case Self.packetTooBig: return "Packet too big: mtu=\(info)"
        case Self.timeExceeded:
            switch code {
            case 0: return "Time exceeded: Hop limit"
            case 1: return "Time exceeded: Defragmentation failure"
            default: return "Time exceeded: Unknown code \(code)"
            }
        case Self.parameterProblem:
            let texts = ["Erroneous header field ", "Unrecognized Next Header ", "Unrecognized IPv6 Option "]
            return "Parameter problem: " + (Int(code) < texts.count ? texts[Int(code)] : "Unknown code \(code) ") + "at \(info)"
        case echoRequest: return "Echo request"
        case echoReply: return "Echo reply"
        default: return "Unknown icmp type: \(type.rawValue)"
        }
    }
}

/// The IPv4 header fields a pinger needs from a raw socket's datagram.
enum IPv4Header {
    /// IHL × 4, checked against the bytes present (RFC 791: 20...60).
    static func headerLength(_ bytes: ArraySlice<UInt8>) throws -> Int {
        guard let first = bytes.first else { throw ParseError(offset: 0, "empty IPv4 header") }
        guard first >> 4 == 4 else { throw ParseError(offset: 0, "version \(first >> 4), not an IPv4 header") }
        let length = Int(first & 0x0f) * 4
        guard length >= 20 else { throw ParseError(offset: 0, "IHL \(length / 4) below the minimum of 5") }
        guard length <= bytes.count else { throw ParseError(offset: 0, "IPv4 header of \(length) bytes, have \(bytes.count)") }
        return length
    }

    /// `headerLength` where a bad header is just nil: the echo path reads one per reply.
    static func validHeaderLength(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard let first = bytes.first, first >> 4 == 4 else { return nil }
        let length = Int(first & 0x0f) * 4
        return length >= 20 && length <= bytes.count ? length : nil
    }

    static func ttl(_ bytes: ArraySlice<UInt8>) -> UInt8? { bytes.count > 8 ? bytes[bytes.startIndex + 8] : nil }

    static func source(_ bytes: ArraySlice<UInt8>) -> IPAddress? {
        guard bytes.count >= 20 else { return nil }
        return IPAddress(family: .ipv4, bytes: Array(bytes[(bytes.startIndex + 12)..<(bytes.startIndex + 16)]))
    }
}

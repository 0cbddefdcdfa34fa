#if canImport(Glibc)
import Glibc
#endif

// This file holds values only: the one libc use is inet_pton/inet_ntop (AddressConversion).

/// The two address families `reach` speaks; mirrors AF_INET / AF_INET6.
public enum AddressFamily: String, Hashable, Sendable, CaseIterable {
    case ipv4
    case ipv6

    /// "IPv4" / "IPv6", as people write it.
    public var label: String { self == .ipv4 ? "IPv4" : "IPv6" }
    public var addressLength: Int { self == .ipv4 ? 4 : 16 }
    public var kernelValue: Int32 { self == .ipv4 ? AF_INET : AF_INET6 }
    public var prefixLength: UInt8 { self == .ipv4 ? 32 : 128 }

    public init?(kernelValue: Int32) {
        switch kernelValue {
        case AF_INET: self = .ipv4
        case AF_INET6: self = .ipv6
        default: return nil
        }
    }
}

/// An IPv4 or IPv6 address in network byte order, with an IPv6 zone (scope) when given.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    public let family: AddressFamily
    public let bytes: [UInt8]
    /// The interface index of an IPv6 zone (`fe80::1%eth0`), 0 when none.
    public let scopeID: UInt32
    /// The zone as written, kept for display.
    public var zone: String? { zoneText.isEmpty ? nil : zoneText }
    /// The zone, "" when none. Not a String?: a copy of one goes through the Optional's
    /// generic value witnesses, and a flood copies the address of every reply.
    private let zoneText: String

    public init?(family: AddressFamily, bytes: [UInt8], scopeID: UInt32 = 0, zone: String? = nil) {
        guard bytes.count == family.addressLength else { return nil }
        self.family = family
        self.bytes = bytes
        self.scopeID = family == .ipv6 ? scopeID : 0
        zoneText = family == .ipv6 ? zone ?? "" : ""
    }

    public enum ParseError: Error, Equatable {
        case notAnAddress
        case unknownZone(String)
        case zoneOnIPv4
    }

    /// Parses a strict literal, as inet_pton accepts it; IPv6 may carry `%zone`, an
    /// interface name or index. Pure: a named zone is kept as text with no index until
    /// `resolvingZone()` looks it up where the address is to be used.
    public static func parse(_ text: String) throws(ParseError) -> IPAddress {
        // Most literals of a list are IPv4: read in place, with no C string and no buffer made
        // for inet_pton.
        if let bytes = dottedQuad(text) { return IPAddress(family: .ipv4, bytes: bytes)! }
        // Most literals carry no zone: no split for them (a list parses thousands).
        if !text.utf8.contains(UInt8(ascii: "%")) {
            if let bytes = AddressConversion.bytes(ofLiteral: text, family: .ipv4) { return IPAddress(family: .ipv4, bytes: bytes)! }
            guard let bytes = AddressConversion.bytes(ofLiteral: text, family: .ipv6) else { throw .notAnAddress }
            return IPAddress(family: .ipv6, bytes: bytes)!
        }
        let parts = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
        let literal = String(parts[0])
        if let bytes = AddressConversion.bytes(ofLiteral: literal, family: .ipv4) {
            if parts.count > 1 { throw .zoneOnIPv4 }
            return IPAddress(family: .ipv4, bytes: bytes)!
        }
        guard let bytes = AddressConversion.bytes(ofLiteral: literal, family: .ipv6) else {
            throw .notAnAddress
        }
        guard parts.count > 1 else { return IPAddress(family: .ipv6, bytes: bytes)! }
        let zone = String(parts[1])
        guard !zone.isEmpty else { throw .unknownZone(zone) }
        let index = UInt32(zone).flatMap { $0 > 0 ? $0 : nil } ?? 0
        return IPAddress(family: .ipv6, bytes: bytes, scopeID: index, zone: zone)!
    }

    /// The four bytes of an IPv4 literal as inet_pton takes it (glibc resolv/inet_pton.c
    /// inet_pton4: four decimal numbers of at most 255 between dots, none with a leading
    /// zero); nil for anything else, which the caller hands to inet_pton.
    static func dottedQuad(_ text: String) -> [UInt8]? {
        text.utf8.withContiguousStorageIfAvailable { utf8 -> [UInt8]? in
            guard utf8.count >= 7 && utf8.count <= 15 else { return nil }
            var value = (UInt32(0), UInt32(0))  // the finished octets, packed; the one being read
            var octets = 0
            var digits = 0
            for byte in utf8 {
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    if digits > 0 && value.1 == 0 { return nil }  // a leading zero
                    value.1 = value.1 * 10 + UInt32(byte - UInt8(ascii: "0"))
                    guard value.1 <= 255 else { return nil }
                    if digits == 0 { octets += 1 }
                    digits += 1
                } else if byte == UInt8(ascii: "."), digits > 0, octets < 4 {
                    value = (value.0 << 8 | value.1, 0)
                    digits = 0
                } else {
                    return nil
                }
            }
            guard octets == 4, digits > 0 else { return nil }
            let address = value.0 << 8 | value.1
            return [UInt8(address >> 24), UInt8(truncatingIfNeeded: address >> 16), UInt8(truncatingIfNeeded: address >> 8),
                    UInt8(truncatingIfNeeded: address)]
        } ?? nil
    }

    /// The same address with another zone index (the interface a zone names).
    public func withScopeID(_ index: UInt32) -> IPAddress {
        IPAddress(family: family, bytes: bytes, scopeID: index, zone: zone)!
    }

    public var description: String {
        let text = AddressConversion.text(of: bytes, family: family)
        if let zone { return text + "%" + zone }
        return text
    }

    /// `description`, appended to UTF-8 bytes: an IPv4 address without a String of its own.
    public func appendDescription(to text: inout [UInt8]) {
        if family == .ipv4 && bytes.count == 4 && zone == nil { return AddressConversion.appendDottedQuad(bytes, to: &text) }
        text += description.utf8
    }

    public var isUnspecified: Bool { bytes.allSatisfy { $0 == 0 } }

    /// 224.0.0.0/4 or ff00::/8.
    public var isMulticast: Bool {
        family == .ipv4 ? (bytes[0] & 0xf0) == 0xe0 : bytes[0] == 0xff
    }

    /// fe80::/10, where a zone is needed to pick the link.
    public var isIPv6LinkLocal: Bool {
        family == .ipv6 && bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80
    }
}

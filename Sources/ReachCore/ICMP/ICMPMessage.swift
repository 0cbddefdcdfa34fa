import ReachSystem

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

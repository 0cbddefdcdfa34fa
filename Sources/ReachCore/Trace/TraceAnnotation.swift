import ReachSystem

/// What an answer to a probe means for the trace, as traceroute.c parse_icmp_res reads
/// ICMP errors: a time-exceeded in transit goes on, the destination's port unreachable or
/// echo reply is the end, and any other error ends the trace with an annotation.
public enum TraceVerdict: Equatable, Sendable {
    /// A router on the way (ICMP time exceeded in transit, RFC 792 / RFC 4443 code 0).
    case onTheWay
    /// The destination answered: port unreachable (UDP), an echo reply, a TCP answer.
    case destination
    /// An error that ends the trace, with traceroute's annotation.
    case stopped(TraceAnnotation)

    /// Whether the trace stops at this probe's hop (traceroute's `final`).
    public var isFinal: Bool { self != .onTheWay }
}

/// traceroute's annotation after a round trip: `!H`, `!N`, `!X`, `!F-1400`, `!<13>`.
public enum TraceAnnotation: Equatable, Sendable, CustomStringConvertible {
    case hostUnreachable
    case networkUnreachable
    case protocolUnreachable
    /// Administratively prohibited (a firewall's reject).
    case prohibited
    case sourceRouteFailed
    /// Fragmentation needed / packet too big, with the next hop's MTU.
    case fragmentationNeeded(mtu: UInt32)
    case hostPrecedenceViolation
    case precedenceCutoff
    /// A destination-unreachable code traceroute has no letter for.
    case unreachableCode(UInt8)
    /// Any other ICMP message (a time exceeded in reassembly, a parameter problem).
    case message(type: UInt8, code: UInt8)

    public var description: String {
        switch self {
        case .hostUnreachable: "!H"
        case .networkUnreachable: "!N"
        case .protocolUnreachable: "!P"
        case .prohibited: "!X"
        case .sourceRouteFailed: "!S"
        case .fragmentationNeeded(let mtu): "!F-\(mtu)"
        case .hostPrecedenceViolation: "!V"
        case .precedenceCutoff: "!C"
        case .unreachableCode(let code): "!<\(code)>"
        case .message(let type, let code): "!<\(type)-\(code)>"
        }
    }

    /// Words for the closing line (`stopped: host unreachable (!H) at hop 3`).
    public var reason: String {
        switch self {
        case .hostUnreachable: "host unreachable"
        case .networkUnreachable: "network unreachable"
        case .protocolUnreachable: "protocol unreachable"
        case .prohibited: "administratively prohibited"
        case .sourceRouteFailed: "source route failed"
        case .fragmentationNeeded(let mtu): "fragmentation needed (MTU \(mtu))"
        case .hostPrecedenceViolation: "host precedence violation"
        case .precedenceCutoff: "precedence cut-off"
        case .unreachableCode(let code): "destination unreachable, code \(code)"
        case .message(let type, let code): "ICMP type \(type) code \(code)"
        }
    }
}

extension TraceVerdict {
    /// An ICMP (RFC 792) error's meaning: traceroute.c parse_icmp_res, AF_INET branch.
    public static func ipv4(type: UInt8, code: UInt8, info: UInt32) -> TraceVerdict {
        if type == 11 && code == 0 { return .onTheWay }
        guard type == 3 else { return .stopped(.message(type: type, code: code)) }
        switch code {
        // Net, net unknown, net isolated, network for TOS.
        case 0, 6, 8, 11: return .stopped(.networkUnreachable)
        // Host, host unknown, host for TOS.
        case 1, 7, 12: return .stopped(.hostUnreachable)
        // Net prohibited, host prohibited, communication prohibited (RFC 1812).
        case 9, 10, 13: return .stopped(.prohibited)
        case 3: return .destination
        case 2: return .stopped(.protocolUnreachable)
        case 4: return .stopped(.fragmentationNeeded(mtu: info))
        case 5: return .stopped(.sourceRouteFailed)
        case 14: return .stopped(.hostPrecedenceViolation)
        case 15: return .stopped(.precedenceCutoff)
        default: return .stopped(.unreachableCode(code))
        }
    }

    /// An ICMPv6 (RFC 4443) error's meaning: parse_icmp_res, AF_INET6 branch.
    public static func ipv6(type: UInt8, code: UInt8, info: UInt32) -> TraceVerdict {
        if type == 3 && code == 0 { return .onTheWay }
        if type == 2 { return .stopped(.fragmentationNeeded(mtu: info)) }
        guard type == 1 else { return .stopped(.message(type: type, code: code)) }
        switch code {
        case 0: return .stopped(.networkUnreachable)
        // Beyond the source's scope, address unreachable.
        case 2, 3: return .stopped(.hostUnreachable)
        case 1: return .stopped(.prohibited)
        case 4: return .destination
        default: return .stopped(.unreachableCode(code))
        }
    }

    /// The meaning of an ICMP error of `family`.
    public static func of(_ family: AddressFamily, type: UInt8, code: UInt8, info: UInt32) -> TraceVerdict {
        family == .ipv4 ? ipv4(type: type, code: code, info: info) : ipv6(type: type, code: code, info: info)
    }
}

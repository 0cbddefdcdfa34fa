import ReachSystem

/// How a trace's probes are sent (traceroute(8) -U, -I, -T).
public enum TraceMethod: String, Sendable, CaseIterable {
    /// UDP datagrams to a closed port; ICMP errors read from the socket's error queue
    /// (IP_RECVERR / IPV6_RECVERR), without privilege (traceroute's default method).
    case udp
    /// ICMP echo requests over a datagram socket where net.ipv4.ping_group_range allows,
    /// else a raw one with CAP_NET_RAW (traceroute -I; `reach ping`'s socket rules).
    case icmp
    /// TCP SYN over a raw socket (traceroute -T; needs CAP_NET_RAW).
    case tcp

    /// The destination port when none is given: traceroute's first UDP port (mod-udp.c
    /// DEF_START_PORT) and its TCP port (mod-tcp.c DEF_TCP_PORT).
    public var defaultPort: UInt16 {
        switch self {
        case .udp: 33434
        case .icmp: 0
        case .tcp: 80
        }
    }

    /// The transport header's length, counted in the packet length (traceroute's
    /// ops->header_len): UDP and ICMP 8 bytes, TCP 20.
    public var transportHeaderLength: Int { self == .tcp ? 20 : 8 }
}

/// traceroute 2.1.2's -w MAX,HERE,NEAR (traceroute.c get_timeout): a probe waits at most
/// `maximum`; once another probe of its hop answered, `here` times that round trip; once
/// a probe of a later hop answered, `near` times that one. A factor of 0 turns its rule off.
public struct TraceWaits: Equatable, Sendable {
    public var maximum: TimeSpan
    public var here: Double
    public var near: Double

    /// traceroute.c DEF_WAIT_SECS, DEF_HERE_FACTOR, DEF_NEAR_FACTOR.
    public init(maximum: TimeSpan = .seconds(5), here: Double = 3, near: Double = 10) {
        self.maximum = maximum
        self.here = here
        self.near = near
    }

    /// traceroute.c DEF_WAIT_PREC: 1 ms added to a round trip before it is multiplied.
    static let precision = TimeSpan.milliseconds(1)

    /// The wait for a probe, given the round trip of an answered probe of its hop and of
    /// the first answered probe sent after it (get_timeout's two rules, in its order).
    public func wait(sameHop: TimeSpan?, later: TimeSpan?) -> TimeSpan {
        if here > 0, let sameHop, sameHop > .zero { return min(maximum, Self.scale(sameHop + Self.precision, by: here)) }
        if near > 0, let later, later > .zero { return min(maximum, Self.scale(later + Self.precision, by: near)) }
        return maximum
    }

    static func scale(_ span: TimeSpan, by factor: Double) -> TimeSpan {
        let scaled = Double(span.nanoseconds) * factor
        return scaled >= Double(TimeSpan.maximum.nanoseconds) ? .maximum : TimeSpan(nanoseconds: Int64(scaled))
    }
}

/// What a trace is asked to do: traceroute's options, and reach's flows.
public struct TraceSettings: Equatable, Sendable {
    public var method: TraceMethod = .udp
    /// -f: the first hop limit probed.
    public var firstHop = 1
    /// -m: the last hop limit probed.
    public var maxHops = 30
    /// -q: probes per hop.
    public var probesPerHop = 3
    public var waits = TraceWaits()
    /// -N: probes in flight at once (traceroute.c DEF_SIM_PROBES).
    public var simultaneous = 16
    /// -p: the destination port (UDP, TCP); nil: the method's default.
    public var port: UInt16?
    /// -t: the TOS byte / IPv6 traffic class.
    public var tos: UInt8?
    /// The packet length operand: the whole IP packet, headers included; nil: traceroute's 60
    /// (IPv4) or 80 (IPv6) bytes, 40 bytes past the IP header (traceroute.c DEF_DATA_LEN).
    public var packetLength: Int?
    /// -s: the source address; -i: the interface (SO_BINDTODEVICE).
    public var source: IPAddress?
    public var interface: String?
    /// --flows: how many flows are traced, each with its own ports (or ICMP identifier).
    public var flows = 1

    public init() {}

    /// The hop limits a trace may probe (an IPv4 TTL and an IPv6 hop limit are 8 bits).
    public static let hopLimits = 1...255
    /// traceroute's limits on -q and -N (traceroute.c: MAX_PROBES 10; -N has no upper
    /// bound there, reach keeps one so a typo cannot open thousands of sockets' worth).
    public static let probesPerHopRange = 1...10
    public static let simultaneousRange = 1...255
    public static let flowRange = 1...16

    /// The destination port probes go to.
    public var destinationPort: UInt16 { port ?? method.defaultPort }

    /// The bytes after the IP header: traceroute.c's data_len plus the transport header,
    /// and at least `minimumData` past it, where a probe carries what tells it apart.
    public func transportLength(for family: AddressFamily) -> Int {
        let ipHeader = family == .ipv4 ? 20 : 40
        let least = method.transportHeaderLength + Self.minimumData
        guard let packetLength else { return max(40, least) }
        return max(packetLength - ipHeader, least)
    }

    /// Data bytes a UDP or ICMP probe needs: its sequence and the word that keeps an ICMP
    /// checksum constant (TraceProbeCodec).
    public static let minimumData = 4

    /// The packet length the header line gives (traceroute's `header_len + data_len`).
    public func packetBytes(for family: AddressFamily) -> Int {
        (family == .ipv4 ? 20 : 40) + transportLength(for: family)
    }

    /// What is wrong with these settings, or nil (the command line's bad-input checks).
    public var problem: String? {
        if !Self.hopLimits.contains(maxHops) { return "max hops must be \(Self.hopLimits.lowerBound) to \(Self.hopLimits.upperBound)" }
        if !Self.hopLimits.contains(firstHop) || firstHop > maxHops { return "first hop \(firstHop) is past max hops \(maxHops)" }
        return nil
    }
}

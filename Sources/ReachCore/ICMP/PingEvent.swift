import ReachSystem

/// What a pinger reports, in order, for one target or many (Apple SimplePing's delegate
/// calls, plus what its users asked for: per-probe timeouts, late replies, ICMP errors).
/// Each probe's event names its probe: the target, the probe's index and its sequence.
public enum PingEvent: Equatable, Sendable {
    /// The socket is open and the target resolved (SimplePing didStartWithAddress).
    case started(PingStart)
    /// The pinger could not start or stopped on a failure (didFailWithError).
    case failed(String)
    /// A probe left (didSendPacket).
    case sent(PingProbe, bytes: Int)
    /// sendto refused a probe (didFailToSendPacket); a verdict such as ENETUNREACH or
    /// EPERM from a firewall, counted as an error (iputils) or a loss (fping).
    case sendFailed(PingProbe, error: Errno)
    /// An echo reply to one of our probes (didReceivePingResponsePacket), duplicates included.
    case reply(PingReply)
    /// No reply within the per-probe timeout.
    case timedOut(PingProbe)
    /// An ICMP error quoting one of our probes: Destination Unreachable, Time Exceeded...
    case icmpError(PingICMPError)
    /// The local stack refused a probe after sending (error queue, SO_EE_ORIGIN_LOCAL),
    /// e.g. EMSGSIZE with the path MTU.
    case localError(PingProbe, error: Errno, info: UInt32)
    /// A packet that is not an answer to us (didReceiveUnexpectedPacket).
    case unexpected(UnexpectedPacket)
    /// Each target's statistics so far, asked for while the run goes on (iputils prints them
    /// on SIGQUIT, Ctrl-\\, fping its summaries); the run is not affected.
    case statusRequested([PingStatistics])
    /// The run is over (count reached, deadline passed, or stopped): each target's statistics.
    case finished([PingStatistics])
}

/// One probe: its target, by position in the run; its index among that target's probes
/// (from 0, fping's `[0]`); its sequence number on the wire (one sequence space for the run).
public struct PingProbe: Equatable, Sendable {
    public var target: Int
    public var index: Int
    public var sequence: UInt16
    public init(target: Int, index: Int, sequence: UInt16) {
        self.target = target
        self.index = index
        self.sequence = sequence
    }
}

public struct PingStart: Equatable, Sendable {
    public var address: IPAddress
    /// The echo identifier on the wire (the kernel's choice on a datagram socket).
    public var identifier: UInt16
    /// "datagram" or "raw".
    public var socketKind: ICMPSocketKind
    public init(address: IPAddress, identifier: UInt16, socketKind: ICMPSocketKind) {
        self.address = address
        self.identifier = identifier
        self.socketKind = socketKind
    }
}

public struct PingReply: Equatable, Sendable {
    public var probe: PingProbe
    public var from: IPAddress
    /// TTL / hop limit of the reply, when the kernel gave it.
    public var ttl: Int?
    /// ICMP bytes (header and data), as iputils prints "64 bytes".
    public var bytes: Int
    public var roundTrip: TimeSpan
    public var duplicate: Bool
    /// The reply came after the probe's timeout had been reported (iputils' rules only:
    /// fping's discard it).
    public var late: Bool
    /// The checksum did not verify (raw IPv4 sockets, iputils' rules; not counted as received).
    public var corrupted: Bool
    /// The reply came from an address other than the target.
    public var differentAddress: Bool
    /// The reply's data differs from what was sent.
    public var wrongData: Bool
    public init(
        probe: PingProbe, from: IPAddress, ttl: Int?, bytes: Int, roundTrip: TimeSpan,
        duplicate: Bool = false, late: Bool = false, corrupted: Bool = false,
        differentAddress: Bool = false, wrongData: Bool = false
    ) {
        self.probe = probe
        self.from = from
        self.ttl = ttl
        self.bytes = bytes
        self.roundTrip = roundTrip
        self.duplicate = duplicate
        self.late = late
        self.corrupted = corrupted
        self.differentAddress = differentAddress
        self.wrongData = wrongData
    }

    public var sequence: UInt16 { probe.sequence }
}

public struct PingICMPError: Equatable, Sendable {
    public var probe: PingProbe
    /// The router or host that sent the error.
    public var from: IPAddress
    public var type: ICMPType
    public var code: UInt8
    /// The 4 bytes after the checksum (next-hop MTU, parameter pointer).
    public var info: UInt32
    /// iputils' words: "Destination Host Unreachable", "Time to live exceeded".
    public var text: String
    public init(probe: PingProbe, from: IPAddress, type: ICMPType, code: UInt8, info: UInt32, text: String) {
        self.probe = probe
        self.from = from
        self.type = type
        self.code = code
        self.info = info
        self.text = text
    }

    public var sequence: UInt16 { probe.sequence }
}

public struct UnexpectedPacket: Equatable, Sendable {
    public var from: IPAddress?
    public var type: ICMPType?
    public var code: UInt8?
    public var reason: String
    public init(from: IPAddress?, type: ICMPType? = nil, code: UInt8? = nil, reason: String) {
        self.from = from
        self.type = type
        self.code = code
        self.reason = reason
    }
}

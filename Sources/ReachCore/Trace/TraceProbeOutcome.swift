import ReachSystem

/// One probe of a trace, as the engine hands it on: answered or not, in traceroute's
/// order (hop by hop, probe by probe), so a renderer can print as it goes.
public struct TraceProbeOutcome: Equatable, Sendable {
    /// The hop limit it was sent with.
    public var hop: Int
    /// Its place among its hop's probes, from 0.
    public var index: Int
    /// The flow it belongs to, from 0 (`--flows`).
    public var flow: Int
    /// The answer; nil when none came within its wait (traceroute's `*`).
    public var answer: TraceAnswer?

    public init(hop: Int, index: Int, flow: Int = 0, answer: TraceAnswer?) {
        self.hop = hop
        self.index = index
        self.flow = flow
        self.answer = answer
    }
}

/// An answer to a probe: who sent it, how long it took, and what it means.
public struct TraceAnswer: Equatable, Sendable {
    /// The router or destination that answered (SO_EE_OFFENDER, or the reply's source).
    public var responder: IPAddress
    public var roundTrip: TimeSpan
    /// The ICMP type and code; nil for an answer that is no ICMP message (a TCP reset).
    public var icmpType: UInt8?
    public var icmpCode: UInt8?
    public var verdict: TraceVerdict
    /// What the error quoted past the transport header of our probe, as the error queue
    /// returns it (ip(7) IP_RECVERR): our probe's data, then, when the router follows
    /// RFC 4884, padding to 128 bytes of original datagram and the extension structure.
    public var quote: [UInt8]
    /// How many bytes of IP and transport header came before `quote` in the original
    /// datagram (traceroute.c's header_len): the extension structure starts at
    /// 128 - quoteOffset in `quote` (RFC 4884 section 5.1).
    public var quoteOffset: Int
    /// The RFC 4884 extension objects of the error; empty until a codec reads `quote`.
    public var extensions: [ICMPExtensionObject]

    public init(
        responder: IPAddress, roundTrip: TimeSpan, icmpType: UInt8?, icmpCode: UInt8?, verdict: TraceVerdict, quote: [UInt8] = [],
        quoteOffset: Int = 0, extensions: [ICMPExtensionObject] = []
    ) {
        self.responder = responder
        self.roundTrip = roundTrip
        self.icmpType = icmpType
        self.icmpCode = icmpCode
        self.verdict = verdict
        self.quote = quote
        self.quoteOffset = quoteOffset
        self.extensions = extensions
    }
}

/// Why a trace ended.
public enum TraceStop: Equatable, Sendable {
    /// The destination answered at `hop`.
    case reachedDestination(hop: Int)
    /// An error with an annotation ended it at `hop`.
    case stopped(TraceAnnotation, hop: Int)
    /// Every hop up to the maximum was probed without reaching the destination.
    case maxHopsReached(Int)
    /// The deadline passed or the run was interrupted first.
    case cutShort
}

/// What a pass of a trace found: the outcomes in order, the last hop that answered, and
/// why it stopped.
public struct TraceResult: Equatable, Sendable {
    public var outcomes: [TraceProbeOutcome]
    public var stop: TraceStop

    public init(outcomes: [TraceProbeOutcome], stop: TraceStop) {
        self.outcomes = outcomes
        self.stop = stop
    }

    /// The highest hop any probe got an answer from, with that answer's responder.
    public var lastAnswered: (hop: Int, responder: IPAddress)? {
        outcomes.last { $0.answer != nil }.flatMap { outcome in outcome.answer.map { (outcome.hop, $0.responder) } }
    }

    public var reachedDestination: Bool {
        if case .reachedDestination = stop { return true }
        return false
    }
}

/// What the engine hands its caller while a pass runs.
public enum TraceEvent: Sendable {
    /// The next probe in traceroute's order is settled: answered, or its wait is over.
    case probe(TraceProbeOutcome)
    /// A send failed with a verdict of the local stack (no route, EMSGSIZE...), for a probe.
    case sendFailed(hop: Int, index: Int, Errno)
}

import ReachSystem

/// The socket side of a trace, behind a protocol so the engine runs against a fake in
/// unit tests and against SocketTraceTransport for real.
public protocol TraceTransport: AnyObject {
    /// Sends probe `sequence` with `hopLimit` (IP_TTL / IPV6_UNICAST_HOPS). A refusal that
    /// is a verdict about the path (sendto's EHOSTUNREACH, EMSGSIZE, ...) is returned; any
    /// other failure is thrown.
    func send(sequence: UInt16, hopLimit: Int) throws -> Errno?
    /// Waits until an answer arrives or `deadline` passes, and hands each answer on.
    /// Returns false when the wait was interrupted (Ctrl-C, a stop).
    func wait(until deadline: MonotonicInstant?, _ deliver: (TraceReply) -> Void) throws -> Bool
}

/// An answer the transport matched to one of its probes.
public struct TraceReply: Equatable, Sendable {
    /// The probe's sequence, as sent.
    public var sequence: UInt16
    public var responder: IPAddress
    public var receivedAt: MonotonicInstant
    /// ICMP type, code and the 32 bits after the checksum (an MTU); nil type: no ICMP
    /// message (an echo reply, a TCP answer) but the destination itself.
    public var icmpType: UInt8?
    public var icmpCode: UInt8?
    public var info: UInt32
    /// What the error quoted from our probe, and the bytes of header before it in the
    /// original datagram (TraceAnswer.quote, .quoteOffset).
    public var quote: [UInt8]
    public var quoteOffset: Int

    public init(
        sequence: UInt16, responder: IPAddress, receivedAt: MonotonicInstant, icmpType: UInt8?, icmpCode: UInt8?, info: UInt32 = 0,
        quote: [UInt8] = [], quoteOffset: Int = 0
    ) {
        self.sequence = sequence
        self.responder = responder
        self.receivedAt = receivedAt
        self.icmpType = icmpType
        self.icmpCode = icmpCode
        self.info = info
        self.quote = quote
        self.quoteOffset = quoteOffset
    }

    /// What the answer means in `family`: an ICMP error by traceroute's reading, else the
    /// destination's own answer.
    public func verdict(in family: AddressFamily) -> TraceVerdict {
        guard let icmpType, let icmpCode else { return .destination }
        return TraceVerdict.of(family, type: icmpType, code: icmpCode, info: info)
    }
}

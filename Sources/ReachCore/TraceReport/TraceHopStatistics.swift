import ReachSystem

/// One hop of an mtr report: mtr 0.95's counters for a hop limit (ui/net.c struct nethost),
/// kept in whole microseconds and updated as mtr updates them (net_process_ping), so the
/// report's figures are the ones mtr would print for the same answers: the average moves
/// by Welford's step truncated to a microsecond, and the sum of squared differences
/// accumulates in whole microseconds squared.
public struct TraceHopStatistics: Equatable, Sendable {
    /// The hop limit.
    public var hop: Int
    /// Probes sent with this hop limit (mtr's xmit, "Snt").
    public var sent = 0
    /// Answers counted (mtr's returned, "Rcv").
    public var received = 0
    /// Every address that answered, in the order first heard (mtr's addrs[]).
    public var responders: [IPAddress] = []
    /// The address of the latest answer (mtr's addr, which its report prints).
    public var latest: IPAddress?
    /// The round trips in microseconds: the latest, the best, the worst, the running
    /// average (all 0 before the first answer), and the sum of squared differences.
    public var lastMicroseconds: Int64 = 0
    public var bestMicroseconds: Int64 = 0
    public var worstMicroseconds: Int64 = 0
    public var averageMicroseconds: Int64 = 0
    public var squaredDifferences: Int64 = 0
    /// The latest answer's ICMP type and code (nil: none yet, or a TCP answer).
    public var icmpType: UInt8?
    public var icmpCode: UInt8?
    /// The latest answer's ICMP extensions (RFC 4884).
    public var extensions: [ICMPExtensionObject] = []
    /// Whether an answer here ended the trace with an error (an unreachable annotation):
    /// mtr ends its report at such a hop (net_max).
    public var endsTrace = false

    public init(hop: Int) { self.hop = hop }

    /// A probe went out with this hop limit.
    public mutating func recordSent() { sent += 1 }

    /// An answer to one of this hop's probes.
    public mutating func record(
        responder: IPAddress, roundTrip: TimeSpan, icmpType: UInt8?, icmpCode: UInt8?, extensions: [ICMPExtensionObject],
        endsTrace: Bool
    ) {
        let microseconds = max(0, roundTrip.microseconds)
        if !responders.contains(responder) { responders.append(responder) }
        latest = responder
        self.icmpType = icmpType
        self.icmpCode = icmpCode
        self.extensions = extensions
        self.endsTrace = endsTrace
        lastMicroseconds = microseconds
        if received == 0 {
            bestMicroseconds = microseconds
            worstMicroseconds = microseconds
            averageMicroseconds = 0
            squaredDifferences = 0
        }
        bestMicroseconds = min(bestMicroseconds, microseconds)
        worstMicroseconds = max(worstMicroseconds, microseconds)
        received += 1
        // net_process_ping: avg is an int and ssd a long long; each `+=` adds in double and
        // truncates the sum.
        let previous = averageMicroseconds
        let step = Double(microseconds - previous)
        averageMicroseconds = Int64((Double(previous) + step / Double(received)).rounded(.towardZero))
        let product = step * Double(microseconds - averageMicroseconds)
        squaredDifferences = Int64((Double(squaredDifferences) + product).rounded(.towardZero))
    }

    /// The loss in thousandths of a percent, as mtr's net_loss computes it (an int of
    /// 1000 × (100 − 100 × returned / xmit)); 0 before anything was sent.
    public var lossThousandths: Int64 {
        guard sent > 0 else { return 0 }
        return Int64((1000 * (100 - 100.0 * Double(received) / Double(sent))).rounded(.towardZero))
    }

    /// The sample standard deviation in microseconds, mtr's net_stdev: the square root of
    /// the squared differences over (returned − 1), truncated; 0 under two answers.
    public var standardDeviationMicroseconds: Int64 {
        guard received > 1 else { return 0 }
        return Int64((Double(squaredDifferences) / Double(received - 1)).squareRoot().rounded(.towardZero))
    }
}

import ReachSystem

/// One target's counters, as both tools keep them. iputils' (ping/ping_common.c
/// gather_statistics and finish): probes counted when sent, times in whole microseconds,
/// duplicates' times included in the sums, mdev by the integer formula. fping's (struct
/// host_entry): a probe counted in `sent` only once answered, timed out or refused, so the
/// loss of a run still going is not inflated by probes in flight; times in nanoseconds.
public struct PingStatistics: Equatable, Sendable {
    /// Probes taken for sending, refused ones included (iputils ntransmitted).
    public var transmitted = 0
    public var received = 0
    public var duplicates = 0
    public var corrupted = 0
    public var errors = 0
    /// Round trips timed (received + duplicates that carried a time).
    public var timed = 0
    public var sumMicroseconds: Int64 = 0
    /// A double, as iputils keeps it (`tsum2`): squares of long round trips overflow 64 bits.
    public var sumOfSquares: Double = 0
    public var minimumMicroseconds: Int64 = .max
    public var maximumMicroseconds: Int64 = 0
    /// iputils' ewma, kept as 8 × the average (as `rts->rtt`).
    public var ewmaTimesEight: Int64 = 0
    /// iputils' "pipe": the most probes out at once, seen when an answer (a reply with a
    /// good checksum, duplicates included, or an ICMP error) came for an older one.
    public var pipe = 0

    /// fping's num_sent: probes answered, timed out or refused.
    public var sent = 0
    /// Replies, duplicates included (fping num_recv_total).
    public var receivedTotal = 0
    /// fping's figures; zero until a reply (its "none yet").
    public var minimum = TimeSpan.zero
    public var maximum = TimeSpan.zero
    public var total = TimeSpan.zero
    /// Per probe index: the round trip, `lost` (timed out or refused), or `unused`; empty
    /// unless the configuration `recordsEachProbe`.
    public var roundTrips: [TimeSpan]

    /// The round trips the percentiles come from: iputils' (every timed reply, duplicates
    /// included, as its min/avg/max) with one target, fping's (the replies settled) with
    /// several; the engine records into it.
    public internal(set) var histogram = LatencyHistogram(.finest)

    /// The `q`-quantile of `histogram`, rounded to the microsecond (an estimate: rounded, where
    /// measured times are truncated), then held within the run's smallest and largest round
    /// trip, which the estimate's bucket may reach past; nil before a reply.
    public func percentile(_ q: Double, minimum: TimeSpan, maximum: TimeSpan) -> TimeSpan? {
        guard let seconds = histogram.quantile(q) else { return nil }
        let estimate = TimeSpan(nanoseconds: Int64((seconds * 1e6).rounded()) * 1000)
        return Swift.min(Swift.max(estimate, minimum), maximum)
    }

    /// Marks in `roundTrips`, below any round trip (fping's -1 and its unused slots).
    public static let lost = TimeSpan(nanoseconds: -1)
    public static let unused = TimeSpan(nanoseconds: -2)

    /// `probes`: how many round trips to keep, one per probe index.
    public init(probes: Int = 0) {
        roundTrips = [TimeSpan](repeating: Self.unused, count: probes)
    }

    /// Adds one round trip (iputils: triptime in µs, truncated).
    public mutating func record(roundTrip: TimeSpan) {
        let micro = max(0, roundTrip.microseconds)
        timed += 1
        sumMicroseconds += micro
        sumOfSquares += Double(micro) * Double(micro)
        minimumMicroseconds = min(minimumMicroseconds, micro)
        maximumMicroseconds = max(maximumMicroseconds, micro)
        ewmaTimesEight = ewmaTimesEight == 0 ? micro * 8 : ewmaTimesEight + micro - ewmaTimesEight / 8
    }

    /// An answer came for the probe numbered `number` when the newest sent was numbered
    /// `newest`: how many were out then.
    mutating func noteAnswer(toProbe number: Int, newest: Int) {
        pipe = max(pipe, newest - number + 1)
    }

    /// A reply's probe settled as fping settles it (stats_add: 0 stands for "none yet");
    /// `received` is counted apart, by either tool's rule.
    mutating func settle(roundTrip rtt: TimeSpan, index: Int) {
        sent += 1
        histogram.record(rtt)
        if maximum == .zero || rtt > maximum { maximum = rtt }
        if minimum == .zero || rtt < minimum { minimum = rtt }
        total += rtt
        keep(rtt, index: index)
    }

    /// A probe lost, timed out or refused, as fping counts it.
    mutating func settleLost(index: Int) {
        sent += 1
        keep(Self.lost, index: index)
    }

    mutating func keep(_ roundTrip: TimeSpan, index: Int) {
        if index < roundTrips.count { roundTrips[index] = roundTrip }
    }

    /// Loss in percent, as iputils prints it with `%g` of a float.
    public var lossPercent: Double {
        guard transmitted > 0 else { return 0 }
        return Double(Float(Double(transmitted - received) * 100.0 / Double(transmitted)))
    }

    /// fping's loss of the probes settled, in whole percent rounded down
    /// (`(num_sent - num_recv) * 100 / num_sent`).
    public var settledLossPercent: Int { sent > 0 ? (sent - received) * 100 / sent : 0 }

    /// fping's average round trip; nil before a reply.
    public var average: TimeSpan? { received > 0 ? TimeSpan(nanoseconds: total.nanoseconds / Int64(received)) : nil }

    public var averageMicroseconds: Int64 {
        timed == 0 ? 0 : sumMicroseconds / Int64(timed)
    }

    /// The mean deviation (a standard deviation in fact), in the order iputils computes
    /// it so small times round as they do there.
    public var mdevMicroseconds: Int64 {
        guard timed > 0 else { return 0 }
        let total = Int64(timed)
        let variance: Double
        if sumMicroseconds < Int64(Int32.max) {
            variance = (sumOfSquares - Double((sumMicroseconds * sumMicroseconds) / total)) / Double(total)
        } else {
            let average = Double(averageMicroseconds)
            variance = sumOfSquares / Double(total) - average * average
        }
        // iputils assigns the double to a long long: truncation toward zero.
        return Self.integerSquareRoot(Int64(max(min(variance, Double(Int64.max / 2)), Double(Int64.min / 2))))
    }

    /// iputils llsqrt: Newton's method on integers, 0 for non-positive input.
    static func integerSquareRoot(_ value: Int64) -> Int64 {
        guard value > 0 else { return value < 0 ? value : 0 }
        var previous = Int64.max
        var x = value
        while x < previous {
            previous = x
            x = (x + value / x) / 2
        }
        return x
    }
}

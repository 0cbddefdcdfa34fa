import ReachSystem

/// Counts and round-trip figures of a ping run, computed as iputils computes them
/// (ping/ping_common.c gather_statistics and finish): times in whole microseconds,
/// duplicates' times included in the sums, mdev by the integer formula.
public struct PingStatistics: Equatable, Sendable {
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

    public init() {}

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

    /// An answer came for the probe sent `number`-th (1-based): how many were out then.
    mutating func noteAnswer(toProbe number: Int) {
        pipe = max(pipe, transmitted - number + 1)
    }

    /// Loss in percent, as iputils prints it with `%g` of a float.
    public var lossPercent: Double {
        guard transmitted > 0 else { return 0 }
        return Double(Float(Double(transmitted - received) * 100.0 / Double(transmitted)))
    }

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

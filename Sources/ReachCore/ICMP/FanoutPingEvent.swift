import ReachSystem

/// What happened, naming the target by its position in the run and the probe by its
/// index (fping's `[0]`, `[1]`...).
public enum FanoutPingEvent: Equatable, Sendable {
    /// `ttl`: the reply's TTL or hop limit, when the kernel gave it.
    case reply(target: Int, index: Int, bytes: Int, roundTrip: TimeSpan, from: IPAddress, ttl: Int?)
    /// A second reply to an answered probe: counted in `receivedTotal` only.
    case duplicate(target: Int, index: Int, bytes: Int, roundTrip: TimeSpan, from: IPAddress, ttl: Int?)
    case timedOut(target: Int, index: Int)
    /// An ICMP error quoting a probe. fping shows it and counts nothing: the probe is lost
    /// when its time is up, unless a reply comes first.
    case icmpError(target: Int, index: Int, from: IPAddress, type: ICMPType, code: UInt8)
    /// The kernel's own error about a probe (a datagram socket's error queue).
    case localError(target: Int, index: Int, error: Errno)
    /// sendto refused the probe: counted as sent and lost, as fping counts it.
    case sendFailed(target: Int, index: Int, error: Errno)
    case finished
}

/// One target's counters, as fping keeps them (struct host_entry): a probe counts as sent
/// only once answered, timed out or refused, so the loss of a run still going is not
/// inflated by probes in flight.
public struct FanoutPingStatistics: Equatable, Sendable {
    public var sent = 0
    public var received = 0
    /// Replies, duplicates included (fping num_recv_total).
    public var receivedTotal = 0
    /// Zero until a reply (fping's "none yet").
    public var minimum = TimeSpan.zero
    public var maximum = TimeSpan.zero
    public var total = TimeSpan.zero
    /// Per probe index: the round trip, `lost` (timed out or refused), or `unused`; empty
    /// unless the configuration `recordsEachProbe`.
    public var roundTrips: [TimeSpan]

    /// Marks in `roundTrips`, below any round trip (fping's -1 and its unused slots).
    public static let lost = TimeSpan(nanoseconds: -1)
    public static let unused = TimeSpan(nanoseconds: -2)

    init(probes: Int) {
        roundTrips = [TimeSpan](repeating: Self.unused, count: probes)
    }

    mutating func keep(_ roundTrip: TimeSpan, index: Int) {
        if index < roundTrips.count { roundTrips[index] = roundTrip }
    }

    /// Percent lost, rounded down (fping: `(sent - received) * 100 / sent`).
    public var lossPercent: Int { sent > 0 ? (sent - received) * 100 / sent : 0 }
    public var average: TimeSpan? { received > 0 ? TimeSpan(nanoseconds: total.nanoseconds / Int64(received)) : nil }
}

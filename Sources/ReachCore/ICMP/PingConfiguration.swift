import ReachSystem

/// How a ping run goes, for one target or many, and whose rules it follows.
public struct PingConfiguration: Equatable, Sendable {
    /// Whose rules the run follows where iputils ping and fping differ: pacing, what a late
    /// reply or an ICMP error counts for, and when the run ends.
    public enum Rules: Equatable, Sendable {
        /// iputils ping (ping/ping_common.c): one probe every `interval` from the last,
        /// sequences from 1, late replies counted, errors counted, its end rules.
        case iputils
        /// fping (src/fping.c): round-robin sends at most one per `interval` across all
        /// targets, each target every `period`, sequences from 0, replies slower than the
        /// timeout discarded, retries without a count.
        case fping
    }

    public var rules = Rules.iputils
    /// Probes per target; nil: iputils sends until stopped or the deadline, fping until each
    /// target answers once, at most `tries` probes (its default mode: -r 3 retries).
    public var count: Int?
    /// iputils: between probes; 0 is flood pacing, the next probe as soon as the last is
    /// answered, or 10 ms after it (iputils -f). fping: at most one probe every this long,
    /// across all targets (fping -i, 10 ms).
    public var interval = TimeSpan.seconds(1)
    /// fping: each target probed every this long (fping -p, 1 s).
    public var period = TimeSpan.seconds(1)
    /// How long a probe may wait for its reply before it is reported timed out (iputils -W,
    /// whose default lingertime is 10 s; fping -t). fping discards a later reply.
    public var timeout = TimeSpan.seconds(10)
    /// The whole run ends then, whatever is outstanding (iputils -w).
    public var deadline: TimeSpan?
    /// ICMP data bytes (iputils -s, default 56: a 64-byte ICMP packet).
    public var payloadSize = 56
    /// Bytes repeated to fill the ICMP data (iputils -p); empty: byte i is i.
    public var payloadPattern: [UInt8] = []
    /// fping without `count`: probes per target, its first try and its 3 retries.
    public var tries = 4
    /// fping without `count`: each retry waits this many times longer than the last (fping -B).
    public var backoff = 1.5
    /// Whether each probe's round trip is kept (fping -C), not only the counters: memory
    /// per target grows with the count.
    public var recordsEachProbe = false

    /// iputils' rules and defaults.
    public init(
        count: Int? = nil, interval: TimeSpan = .seconds(1), timeout: TimeSpan = .seconds(10), deadline: TimeSpan? = nil,
        payloadSize: Int = 56
    ) {
        self.count = count
        self.interval = interval
        self.timeout = timeout
        self.deadline = deadline
        self.payloadSize = payloadSize
    }

    /// fping's rules and defaults: -i 10 ms, -p 1 s, -t 500 ms.
    public static func fping() -> PingConfiguration {
        var configuration = PingConfiguration(interval: .milliseconds(10), timeout: .milliseconds(500))
        configuration.rules = .fping
        return configuration
    }

    /// iputils flood pacing: one probe in flight, or one per 10 ms.
    public static let floodPacing = TimeSpan.milliseconds(10)

    /// fping's timeout in count mode when none is given (src/fping.c, "auto-tune default
    /// timeout"): the period, at most 2 s.
    public static func countModeTimeout(period: TimeSpan) -> TimeSpan { min(period, .seconds(2)) }
}

import ReachSystem

/// How a ping run over several targets goes (fping's model).
public struct FanoutPingConfiguration: Equatable, Sendable {
    /// Probes per target (fping -c); nil: until each target answers once, at most `tries`
    /// probes (fping's default mode: -r 3 retries).
    public var count: Int?
    /// Probes per target without `count`: fping's first try and its 3 retries.
    public var tries = 4
    /// At most one probe every this long, across all targets (fping -i, 10 ms).
    public var interval = TimeSpan.milliseconds(10)
    /// Each target probed every this long (fping -p, 1 s).
    public var period = TimeSpan.seconds(1)
    /// How long a probe waits for its reply (fping -t). A reply later than this is not
    /// counted, as fping discards it.
    public var timeout = TimeSpan.milliseconds(500)
    /// Without `count`, each retry waits this many times longer than the last (fping -B).
    public var backoff = 1.5
    /// The whole run ends then, whatever is outstanding.
    public var deadline: TimeSpan?
    /// ICMP data bytes per probe.
    public var payloadSize = 56
    /// Bytes repeated to fill the ICMP data (iputils -p); empty: byte i is i.
    public var payloadPattern: [UInt8] = []
    /// Whether each probe's round trip is kept (fping -C), not only the counters: memory
    /// per target grows with the count.
    public var recordsEachProbe = false

    public init() {}

    /// fping's timeout in count mode when none is given (src/fping.c, "auto-tune default
    /// timeout"): the period, at most 2 s.
    public static func countModeTimeout(period: TimeSpan) -> TimeSpan { min(period, .seconds(2)) }
}

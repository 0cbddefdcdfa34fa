/// Counters for `--debug-stats`: a burst must cost far fewer evaluations than messages.
public struct WatchStatistics: Hashable, Sendable {
    public var wakeUps = 0
    public var drains = 0
    public var datagrams = 0
    public var messages = 0
    public var overruns = 0
    public var evaluations = 0
    public var lookups = 0
    /// Connectivity checks started (`--probe`).
    public var checks = 0
    public init() {}
}

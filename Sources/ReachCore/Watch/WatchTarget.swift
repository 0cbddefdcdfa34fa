/// What `watch` evaluates: what `status`, `addr` or `host` would.
public enum WatchTarget: Hashable, Sendable {
    /// The internet, per address family (`families` as in `status`).
    case internet(families: Set<AddressFamily>)
    case address(IPAddress)
    /// A name, re-resolved on its own schedule; `family` nil asks for both.
    case host(String, family: AddressFamily?)
}

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

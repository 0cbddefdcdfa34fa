import ReachSystem

/// How one probe ended.
public struct ProbeResult: Hashable, Sendable {
    public enum Outcome: String, Hashable, Sendable {
        case passed = "pass"
        case portal
        case failed = "fail"
    }

    public var spec: ProbeSpec
    public var outcome: Outcome
    /// From the start of the probe (name resolution included) to its verdict.
    public var elapsed: TimeSpan
    /// `elapsed` in milliseconds, fractions kept, as the reports print it.
    public var milliseconds: Double { Double(elapsed.nanoseconds) / 1e6 }
    /// What was seen: "HTTP 204", "redirected to http://...", "connection refused", "timed out".
    public var detail: String
    /// The HTTP redirect target, when there was one.
    public var location: String?
    /// The family the probe went over; nil when its host did not resolve in time.
    public var family: AddressFamily?

    public init(
        spec: ProbeSpec, outcome: Outcome, elapsed: TimeSpan, detail: String, location: String? = nil, family: AddressFamily? = nil
    ) {
        self.spec = spec
        self.outcome = outcome
        self.elapsed = elapsed
        self.detail = detail
        self.location = location
        self.family = family
    }
}

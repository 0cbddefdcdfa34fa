/// NetworkManager's connectivity states, decided from probe results.
public enum ConnectivityState: String, Hashable, Sendable {
    /// No usable route: nothing was probed.
    case none
    /// A route exists, but every probe failed.
    case limited
    /// An HTTP probe was answered by something other than the expected server.
    case portal
    /// A probe passed.
    case full

    /// Portal beats a passing ICMP or TCP probe (as NetworkManager decides it); then
    /// any pass is full; otherwise limited.
    public static func decide(routeUsable: Bool, results: [ProbeResult]) -> ConnectivityState {
        guard routeUsable else { return .none }
        if results.contains(where: { $0.outcome == .portal }) { return .portal }
        if results.contains(where: { $0.outcome == .passed }) { return .full }
        return .limited
    }
}

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
    public var milliseconds: Double
    /// What was seen: "HTTP 204", "redirected to http://...", "connection refused", "timed out".
    public var detail: String
    /// The HTTP redirect target, when there was one.
    public var location: String?

    public init(spec: ProbeSpec, outcome: Outcome, milliseconds: Double, detail: String, location: String? = nil) {
        self.spec = spec
        self.outcome = outcome
        self.milliseconds = milliseconds
        self.detail = detail
        self.location = location
    }
}

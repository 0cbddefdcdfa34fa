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

import ReachSystem

/// When `watch --probe` checks connectivity: at once when a route becomes usable, again
/// after every evaluation that a route or link change caused, and every `interval` after
/// the last check ended. While checks fail (limited or portal) the wait doubles, up to
/// `maximumBackoff` times the interval; a check that passes brings it back to the interval.
/// At most one check runs at a time: changes seen during a check ask for one more after it,
/// however many there were. With no usable route nothing is checked and no timer is set.
///
/// A loss upstream is thus seen at most `interval` + the probe timeout after it happens;
/// a recovery, while the checks were failing, at most 4 × `interval` + the timeout.
public struct ProbeSchedule: Hashable, Sendable {
    public static let maximumBackoff: Int64 = 4

    public let interval: TimeSpan
    /// The wait after the last check: `interval`, or more while checks fail.
    public private(set) var currentInterval: TimeSpan
    public private(set) var isInFlight = false
    public private(set) var routeUsable = false
    private var requested = false
    private var nextDue: MonotonicInstant?

    public init(interval: TimeSpan) {
        self.interval = max(TimeSpan(milliseconds: 1), interval)
        currentInterval = self.interval
    }

    /// An evaluation ran. A route that just became usable, or any route or link change
    /// (`afterChange`), asks for a check; a route that went away cancels the periodic one
    /// and the backoff (its return starts afresh).
    public mutating func evaluated(routeUsable usable: Bool, afterChange: Bool) {
        defer { routeUsable = usable }
        guard usable else {
            requested = false
            nextDue = nil
            currentInterval = interval
            return
        }
        if !routeUsable || afterChange { requested = true }
    }

    public func shouldStart(at now: MonotonicInstant) -> Bool {
        guard routeUsable, !isInFlight else { return false }
        if requested { return true }
        return nextDue.map { now >= $0 } ?? false
    }

    public mutating func started(at now: MonotonicInstant) {
        isInFlight = true
        requested = false
    }

    /// A check ended with `state`: the next one is due a (maybe backed-off) interval later.
    public mutating func finished(_ state: ConnectivityState, at now: MonotonicInstant) {
        isInFlight = false
        switch state {
        case .limited, .portal: currentInterval = min(currentInterval * 2, interval * Self.maximumBackoff)
        case .full, .none: currentInterval = interval
        }
        nextDue = now + currentInterval
    }

    /// When the loop must wake for the next check; nil while one runs (its descriptor wakes
    /// the loop) and while no route is usable (only a change can make one).
    public var nextDeadline: MonotonicInstant? {
        guard routeUsable, !isInFlight else { return nil }
        return requested ? MonotonicInstant(nanoseconds: .min) : nextDue
    }
}

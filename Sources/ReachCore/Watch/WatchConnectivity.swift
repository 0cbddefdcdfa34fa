import ReachSystem

/// The connectivity part of `watch --probe`'s state: which verdict goes with each
/// evaluation, and when to check (`schedule`). With no usable route the state is `none`
/// at once and nothing is probed. An evaluation that finds a route usable again is held
/// until the first check ends (bounded by the probe timeout), so that no state pairs a
/// usable route with a stale `none`; later evaluations carry the last verdict until the
/// check they asked for replaces it.
public struct WatchConnectivity: Hashable, Sendable {
    public private(set) var schedule: ProbeSchedule
    /// The latest evaluation, without connectivity.
    private var latest: ReachabilityReport?
    /// The last verdict while the route has been usable; nil before the first check.
    private var verdict: ConnectivityReport?
    /// When the held evaluation's change was first seen.
    private var heldSince: WatchInstant?
    /// The route went away while a check ran: its verdict is about a network that is gone.
    private var lostDuringCheck = false

    public init(schedule: ProbeSchedule) {
        self.schedule = schedule
    }

    /// An evaluation: the report to observe, with its connectivity, and the instant of the
    /// change; nil while it is held for the first check.
    public mutating func evaluated(_ report: ReachabilityReport, afterChange: Bool,
                                   at instant: WatchInstant) -> (report: ReachabilityReport, since: WatchInstant)? {
        latest = report
        schedule.evaluated(routeUsable: report.isReachable, afterChange: afterChange)
        guard report.isReachable else {
            if schedule.isInFlight { lostDuringCheck = true }
            verdict = nil
            heldSince = nil
            var attached = report
            attached.attach(ConnectivityReport(state: .none, probes: []))
            return (attached, instant)
        }
        guard let verdict else {
            if heldSince == nil { heldSince = instant }
            return nil
        }
        var attached = report
        attached.attach(verdict)
        return (attached, instant)
    }

    public mutating func started(at now: MonotonicInstant) {
        lostDuringCheck = false
        schedule.started(at: now)
    }

    /// A check ended: the latest evaluation with the new verdict, to observe; nil when the
    /// route went away since the check began (a later check, already asked for, decides).
    public mutating func checkFinished(_ connectivity: ConnectivityReport,
                                       at instant: WatchInstant) -> (report: ReachabilityReport, since: WatchInstant)? {
        schedule.finished(connectivity.state, at: instant.monotonic)
        defer { lostDuringCheck = false }
        guard !lostDuringCheck, let latest, latest.isReachable else { return nil }
        verdict = connectivity
        let since = heldSince ?? instant
        heldSince = nil
        var attached = latest
        attached.attach(connectivity)
        return (attached, since)
    }

    /// The moment the loop must wake for the next check (see `ProbeSchedule.nextDeadline`).
    public var nextDeadline: MonotonicInstant? { schedule.nextDeadline }

    public func shouldStart(at now: MonotonicInstant) -> Bool { schedule.shouldStart(at: now) }
}

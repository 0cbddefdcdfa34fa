import ReachSystem

/// When `watch <name>` looks the name up again: at once, every `interval`, and after
/// link or route changes, with at most one lookup in flight (a change seen during a
/// lookup asks for one more afterwards, however many changes there were).
public struct ResolutionSchedule: Hashable, Sendable {
    public let interval: TimeSpan
    /// How long the first lookup may take before "no answer yet" becomes the state,
    /// so the first line still comes promptly when the resolver is silent.
    public let patience: TimeSpan
    public private(set) var inFlightSince: MonotonicInstant?
    public private(set) var hasAnswered = false
    /// "No answer yet" has been shown for the first lookup: its patience is spent.
    private var patienceSpent = false
    private var refreshRequested = true
    private var nextDue: MonotonicInstant

    public init(interval: TimeSpan, patience: TimeSpan, now: MonotonicInstant) {
        self.interval = interval
        self.patience = patience
        nextDue = now
    }

    public var isInFlight: Bool { inFlightSince != nil }

    /// A link, address or route changed: the answer may have too.
    public mutating func requestRefresh() { refreshRequested = true }

    public func shouldStart(at now: MonotonicInstant) -> Bool {
        inFlightSince == nil && (refreshRequested || now >= nextDue)
    }

    public mutating func started(at now: MonotonicInstant) {
        inFlightSince = now
        refreshRequested = false
    }

    public mutating func finished(at now: MonotonicInstant) {
        inFlightSince = nil
        hasAnswered = true
        nextDue = now + interval
    }

    /// True once the first lookup has run longer than `patience` without an answer
    /// (once only: `spendPatience()` says the caller has shown it).
    public func patienceExpired(at now: MonotonicInstant) -> Bool {
        guard !hasAnswered, !patienceSpent, let since = inFlightSince else { return false }
        return now >= since + patience
    }

    public mutating func spendPatience() { patienceSpent = true }

    /// The next moment the schedule needs the loop: the periodic lookup, or the end
    /// of the first lookup's patience. nil while a later lookup runs (its descriptor wakes the loop).
    public var nextDeadline: MonotonicInstant? {
        if let since = inFlightSince { return hasAnswered || patienceSpent ? nil : since + patience }
        return refreshRequested ? MonotonicInstant(nanoseconds: .min) : nextDue
    }
}

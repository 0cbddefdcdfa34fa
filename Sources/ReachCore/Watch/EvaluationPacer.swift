import ReachSystem

/// Spaces evaluations during a burst of kernel messages. The first change after a
/// quiet spell is evaluated at once (the latency `watch` is measured on); changes that
/// follow within `holdoff` of an evaluation wait until the holdoff ends and then cost
/// one evaluation together. A burst of thousands of route messages thus costs about
/// one evaluation per holdoff, not one per wake-up, and the last evaluation always
/// comes after the last message, so the final state is right. Idle, it sets no timer.
public struct EvaluationPacer: Hashable, Sendable {
    public let holdoff: TimeSpan
    private var lastEvaluation: MonotonicInstant?
    /// When the first change not yet evaluated was seen.
    public private(set) var pendingSince: WatchInstant?

    public init(holdoff: TimeSpan) {
        self.holdoff = holdoff
    }

    /// A drain found changes at `now`. True: evaluate now. False: wait for `nextDeadline`.
    public mutating func changeSeen(at now: WatchInstant) -> Bool {
        if pendingSince == nil { pendingSince = now }
        return isDue(at: now.monotonic)
    }

    /// True when a held-back change is due for its evaluation.
    public func isDue(at now: MonotonicInstant) -> Bool {
        guard pendingSince != nil else { return false }
        guard let lastEvaluation else { return true }
        return now >= lastEvaluation + holdoff
    }

    /// The evaluation ran: returns when the change it covers was first seen.
    public mutating func evaluated(at now: MonotonicInstant) -> WatchInstant? {
        lastEvaluation = now
        defer { pendingSince = nil }
        return pendingSince
    }

    /// When the held-back change is due; nil while nothing waits. A change seen before any
    /// evaluation is due at once (the distant past).
    public var nextDeadline: MonotonicInstant? {
        guard pendingSince != nil else { return nil }
        return lastEvaluation.map { $0 + holdoff } ?? MonotonicInstant(nanoseconds: .min)
    }
}

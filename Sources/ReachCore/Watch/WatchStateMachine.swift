import ReachSystem

/// The state `--until` waits for.
public enum WaitCondition: String, Hashable, Sendable, CaseIterable {
    case reachable
    case unreachable

    /// With probes, reachable means full connectivity, as `status --probe` exits 0 only then.
    public func holds(for report: ReachabilityReport) -> Bool {
        let reachable = report.connectivity.map { $0.state == .full } ?? report.isReachable
        return reachable == (self == .reachable)
    }
}

/// What the user asked `watch` to do with the states it sees.
public struct WatchConfiguration: Hashable, Sendable {
    /// How long a new state must hold before it is reported (0: at once).
    public var settle: TimeSpan
    public var until: WaitCondition?
    public var timeout: TimeSpan?
    /// End after this many changes (the initial state does not count).
    public var count: Int?

    public init(settle: TimeSpan = TimeSpan(milliseconds: 0), until: WaitCondition? = nil, timeout: TimeSpan? = nil, count: Int? = nil) {
        self.settle = settle
        self.until = until
        self.timeout = timeout
        self.count = count
    }
}

/// A moment on both clocks: monotonic for deadlines, wall (UTC) for what is printed.
public struct WatchInstant: Hashable, Sendable {
    /// CLOCK_MONOTONIC: deadlines and lengths.
    public var monotonic: MonotonicInstant
    /// CLOCK_REALTIME: what is printed.
    public var wall: RealtimeInstant

    public init(monotonic: MonotonicInstant, wall: RealtimeInstant) {
        self.monotonic = monotonic
        self.wall = wall
    }
}

/// One line (text) or object (JSON) of `watch` output.
public struct WatchEvent: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case initial
        case change
    }

    public var kind: Kind
    /// When the state was first seen (wall clock): with `--settle` that is when the change
    /// happened, not when it was reported.
    public var time: RealtimeInstant
    public var current: ReachabilityReport
    /// The state reported before; nil for the initial event.
    public var previous: ReachabilityReport?
}

/// Why `watch` ended.
public enum WatchEnd: Hashable, Sendable {
    /// The `--until` state holds.
    case conditionMet
    /// `--timeout` passed first.
    case timedOut
    /// `--count` changes were reported.
    case countReached
    /// SIGINT or SIGTERM.
    case interrupted
    /// The reader of stdout went away.
    case readerGone
}

/// The pure core of `watch`: turns evaluations into events under `--settle`, and
/// decides when to stop under `--until`, `--timeout` and `--count`. Time comes in
/// from outside, so tests drive it with a manual clock.
public struct WatchStateMachine {
    public let configuration: WatchConfiguration
    private let timeoutDeadline: MonotonicInstant?
    private var reported: (state: WatchedState, report: ReachabilityReport)?
    /// A state that differs from the reported one, held until it has lasted `settle`.
    private var pending: (state: WatchedState, report: ReachabilityReport, since: WatchInstant)?
    public private(set) var changeCount = 0
    public private(set) var end: WatchEnd?

    public init(configuration: WatchConfiguration, startedAt start: MonotonicInstant) {
        self.configuration = configuration
        timeoutDeadline = configuration.timeout.map { start + $0 }
    }

    /// The last state reported, if any.
    public var reportedState: ReachabilityReport? { reported?.report }

    /// The next moment `advance` has work to do; nil when only an event can change anything.
    public var nextDeadline: MonotonicInstant? {
        guard end == nil else { return nil }
        let settleDeadline = pending.map { $0.since.monotonic + configuration.settle }
        return [settleDeadline, timeoutDeadline].compactMap { $0 }.min()
    }

    /// A fresh evaluation. The first one is reported at once; later ones only when
    /// their compared state differs from the reported one and has held `settle`.
    public mutating func observe(_ report: ReachabilityReport, at now: WatchInstant) -> [WatchEvent] {
        guard end == nil else { return [] }
        let state = WatchedState(report)
        guard let current = reported else {
            reported = (state, report)
            if configuration.until?.holds(for: report) == true { end = .conditionMet }
            return [WatchEvent(kind: .initial, time: now.wall, current: report, previous: nil)] + advance(to: now.monotonic)
        }
        if state == current.state {
            pending = nil // back where it was before the settle time passed: a flap, not a change
            return advance(to: now.monotonic)
        }
        if pending?.state == state {
            pending?.report = report // same state, fresher details
        } else {
            pending = (state, report, now)
        }
        return advance(to: now.monotonic)
    }

    /// Lets time pass: reports a pending state that has settled, then checks the timeout.
    public mutating func advance(to now: MonotonicInstant) -> [WatchEvent] {
        guard end == nil else { return [] }
        var events: [WatchEvent] = []
        if let candidate = pending, let previous = reported, now >= candidate.since.monotonic + configuration.settle {
            events.append(WatchEvent(kind: .change, time: candidate.since.wall, current: candidate.report, previous: previous.report))
            reported = (candidate.state, candidate.report)
            pending = nil
            changeCount += 1
            if configuration.until?.holds(for: candidate.report) == true {
                end = .conditionMet
            } else if let count = configuration.count, changeCount >= count {
                end = .countReached
            }
        }
        if end == nil, let timeoutDeadline, now >= timeoutDeadline { end = .timedOut }
        return events
    }

    /// SIGINT / SIGTERM, or the reader went away.
    public mutating func stop(_ reason: WatchEnd) {
        if end == nil { end = reason }
    }
}

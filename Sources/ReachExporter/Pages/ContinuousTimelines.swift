import ReachSystem

/// The continuous targets' timelines, for the page's rows and their graphs: the prober records
/// each request and answer here as it counts them, a page reads under the same lock. One entry
/// per `host` and `ip`, as the series are labelled; an address that left the name's answer
/// is removed with its series.
public final class ContinuousTimelines: @unchecked Sendable {
    public struct Target: Hashable, Sendable {
        public var host: String
        public var ip: String

        public init(host: String, ip: String) {
            self.host = host
            self.ip = ip
        }
    }

    /// What the page's row shows of one target.
    public struct Row: Sendable, Equatable {
        public var target: Target
        public var lastRoundTrip: TimeSpan?
        /// The last whole step's loss (a minute), nil before one has ended.
        public var recentLoss: Double?
    }

    private struct Entry {
        var timeline: LatencyTimeline
        var lastRoundTrip: TimeSpan?
    }

    /// A minute a step, an hour kept: SmokePing's default graph spans the last few hours at 5
    /// minutes a step; an hour at a minute shows a scrape interval's detail for 6 KB a target.
    public static let standardStepLength = TimeSpan.seconds(60)
    public static let standardKept = 60
    /// The longest `&range=` a graph draws.
    public static let longestRange = standardStepLength * Int64(standardKept)

    public let stepLength: TimeSpan
    public let kept: Int
    private let lock = Lock()
    private var entries: [Target: Entry] = [:]
    /// The page's order: the order targets were first recorded.
    private var order: [Target] = []

    public init(stepLength: TimeSpan = standardStepLength, kept: Int = standardKept) {
        self.stepLength = stepLength
        self.kept = kept
    }

    public func sent(_ target: Target, at time: RealtimeInstant) {
        lock.withLock { update(target) { $0.timeline.sent(at: time) } }
    }

    public func received(_ target: Target, roundTrip: TimeSpan, sentAt: RealtimeInstant, now: RealtimeInstant) {
        lock.withLock {
            update(target) { entry in
                entry.timeline.received(roundTrip, sentAt: sentAt, now: now)
                entry.lastRoundTrip = roundTrip
            }
        }
    }

    /// Forgets the targets not in `kept` (a reload's new targets, a name's new addresses).
    public func keepOnly(_ targets: Set<Target>) {
        lock.withLock {
            entries = entries.filter { targets.contains($0.key) }
            order.removeAll { !targets.contains($0) }
        }
    }

    public func rows(now: RealtimeInstant) -> [Row] {
        lock.withLock {
            order.compactMap { target in
                guard let entry = entries[target] else { return nil }
                let current = entry.timeline.index(of: now)
                let whole = entry.timeline.steps(from: current - 1, now: now).first { $0.index == current - 1 }
                return Row(target: target, lastRoundTrip: entry.lastRoundTrip, recentLoss: whole?.loss)
            }
        }
    }

    /// The graph of `target` over the last `range`, or nil for a target not recorded.
    public func graph(_ target: Target, range: TimeSpan, size: SmokeGraph.Size, now: RealtimeInstant) -> [UInt8]? {
        let copy = lock.withLock { entries[target]?.timeline }
        guard let timeline = copy else { return nil }
        let last = timeline.index(of: now)
        let first = last - max(range.nanoseconds / stepLength.nanoseconds, 1) + 1
        let title = "round trip to \(target.host) (\(target.ip)), last \(Self.minutes(range))"
        return SmokeGraph.render(
            title: title, steps: timeline.steps(from: first, now: now), stepLength: stepLength, from: first, to: last, size: size)
    }

    static func minutes(_ span: TimeSpan) -> String {
        let minutes = span.nanoseconds / 60_000_000_000
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes) min"
    }

    private func update(_ target: Target, _ change: (inout Entry) -> Void) {
        if entries[target] == nil { order.append(target) }
        change(&entries[target, default: Entry(timeline: LatencyTimeline(stepLength: stepLength, kept: kept))])
    }
}

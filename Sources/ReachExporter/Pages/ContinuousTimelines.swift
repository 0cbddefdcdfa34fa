import ReachCore
import ReachSystem

/// What the exporter's page shows of the continuous targets: each target's row and its
/// SmokePing graph, from the `LatencyTimeline` the continuous prober keeps beside each series
/// (`SmokepingMetrics`). A target is named as its series are labelled, `host` and `ip`.
public enum ContinuousTimelines {
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

    /// A minute a step, an hour kept: SmokePing's default graph spans the last few hours at 5
    /// minutes a step; an hour at a minute shows a scrape interval's detail for 6 KB a target.
    public static let stepLength = TimeSpan.seconds(60)
    public static let kept = 60
    /// The longest `&range=` a graph draws.
    public static let longestRange = stepLength * Int64(kept)

    static func row(_ target: Target, _ timeline: LatencyTimeline, lastRoundTrip: TimeSpan?, now: RealtimeInstant) -> Row {
        let current = timeline.index(of: now)
        let whole = timeline.steps(from: current - 1, now: now).first { $0.index == current - 1 }
        return Row(target: target, lastRoundTrip: lastRoundTrip, recentLoss: whole?.loss)
    }

    /// The graph of `target` over the last `range`.
    static func graph(_ target: Target, _ timeline: LatencyTimeline, range: TimeSpan, size: SmokeGraph.Size, now: RealtimeInstant)
        -> [UInt8]
    {
        let last = timeline.index(of: now)
        let first = last - max(range.nanoseconds / timeline.stepLength.nanoseconds, 1) + 1
        let title = "round trip to \(target.host) (\(target.ip)), last \(minutes(range))"
        return SmokeGraph.render(
            title: title, steps: timeline.steps(from: first, now: now), stepLength: timeline.stepLength, from: first, to: last, size: size)
    }

    static func minutes(_ span: TimeSpan) -> String {
        let minutes = span.nanoseconds / 60_000_000_000
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes) min"
    }
}

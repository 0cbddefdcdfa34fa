import ReachCore
import ReachExporterProbes
import ReachSystem

/// The continuous prober's series: smokeping_prober's (names, `host` and `ip` labels,
/// types and help as its collector.go declares them) and reach's own beside them. Written
/// by the pinger threads one event at a time, read by scrapes: the lock is held for one
/// counter's update, or for copying the series out, never while writing an answer.
public final class SmokepingMetrics: ContinuousPingObserver, @unchecked Sendable {
    /// One address of one host of one group.
    struct Series {
        var labels: [MetricSample.Label]
        var active = true
        var requests = 0
        var duplicates = 0
        var sendErrors = 0
        /// Refused sends by the route type behind them, in UnreachableReason's order.
        var refusals: [Int]
        /// The last reply's TTL or hop limit; nil before any reply.
        var ttl: Int?
        var histogram: LatencyHistogram
    }

    /// A series' last hour for the exporter's page and graphs, beside `series` (by the same
    /// id) so that a scrape's copy of the series does not copy it.
    struct Timeline {
        var steps = LatencyTimeline(stepLength: ContinuousTimelines.stepLength, kept: ContinuousTimelines.kept)
        var lastRoundTrip: TimeSpan?
    }

    private let lock = Lock()
    private var series: [Series] = []
    private var timelines: [Timeline] = []
    private var receiveErrors = 0
    /// Names that did not resolve, by host, as reach counts them.
    private var resolutionFailures: [(host: String, count: Int)] = []
    /// The round trips' buckets: smokeping_prober's, classic and native.
    let layout: LatencyHistogram.Layout

    public init(layout: LatencyHistogram.Layout) {
        self.layout = layout
    }

    /// Makes the series `id` count from zero under `labels` (a new address, or one back).
    func activate(_ id: Int, labels: [MetricSample.Label]) {
        let fresh = Series(
            labels: labels, refusals: [Int](repeating: 0, count: UnreachableReason.allCases.count),
            histogram: LatencyHistogram(layout))
        lock.withLock {
            while series.count <= id { series.append(fresh) }
            while timelines.count <= id { timelines.append(Timeline()) }
            series[id] = fresh
            timelines[id] = Timeline()
        }
    }

    /// The address left its name's answer: its series are no longer written.
    func deactivate(_ id: Int) {
        lock.withLock { if id < series.count { series[id].active = false } }
    }

    func countResolutionFailure(of host: String) {
        lock.withLock {
            if let index = resolutionFailures.firstIndex(where: { $0.host == host }) {
                resolutionFailures[index].count += 1
            } else {
                resolutionFailures.append((host, 1))
            }
        }
    }

    public func observe(_ event: PingEvent, series id: Int) {
        observe(event, series: id, at: .now())
    }

    /// The event, seen at `now` (the page's timeline counts it in that minute).
    func observe(_ event: PingEvent, series id: Int, at now: RealtimeInstant) {
        lock.withLock {
            guard id < series.count, series[id].active else { return }
            switch event {
            case .sent:
                series[id].requests += 1
                timelines[id].steps.sent(at: now)
            case .sendFailed(_, let errno), .localError(_, let errno, _):
                if case .sendFailed = event {
                    series[id].requests += 1
                    timelines[id].steps.sent(at: now)
                }
                series[id].sendErrors += 1
                if let reason = UnreachableReason(routeRefusal: errno), let index = UnreachableReason.allCases.firstIndex(of: reason) {
                    series[id].refusals[index] += 1
                }
            case .reply(let reply) where reply.duplicate:
                series[id].duplicates += 1
            case .reply(let reply) where !reply.corrupted:
                series[id].histogram.record(reply.roundTrip)
                if let ttl = reply.ttl { series[id].ttl = ttl }
                let sentAt = RealtimeInstant(nanoseconds: now.nanoseconds - reply.roundTrip.nanoseconds)
                timelines[id].steps.received(reply.roundTrip, sentAt: sentAt, now: now)
                timelines[id].lastRoundTrip = reply.roundTrip
            default:
                break
            }
        }
    }

    public func observeReceiveError() {
        lock.withLock { receiveErrors += 1 }
    }

    /// The samples of every active series, family by family.
    public var samples: [MetricSample] {
        let copied: [Series] = lock.withLock { series.filter(\.active) }
        let receiveErrorCount: Int = lock.withLock { receiveErrors }
        let failures: [(host: String, count: Int)] = lock.withLock { resolutionFailures }
        var out: [MetricSample] = []
        out.reserveCapacity(copied.count * 8)
        for one in copied {
            out.append(MetricSample("smokeping_requests_total", help: "Number of ping requests sent", kind: .counter,
                                    labels: one.labels, value: Double(one.requests)))
        }
        for one in copied {
            out.append(MetricSample("smokeping_response_duplicates_total", help: "The number of duplicated response packets.",
                                    kind: .counter, labels: one.labels, value: Double(one.duplicates)))
        }
        for one in copied {
            out.append(MetricSample("smokeping_response_duration_seconds", help: "A histogram of latencies for ping responses.",
                                    labels: one.labels, histogram: one.histogram))
        }
        for one in copied {
            guard let ttl = one.ttl else { continue }
            out.append(MetricSample("smokeping_response_ttl", help: "The last response Time To Live (TTL).", labels: one.labels,
                                    value: Double(ttl)))
        }
        out.append(MetricSample("smokeping_receive_errors_total", help: "The number of errors when Pinger attempts to receive packets.",
                                kind: .counter, value: Double(receiveErrorCount)))
        for one in copied {
            out.append(MetricSample("smokeping_send_errors_total", help: "The number of errors when Pinger attempts to send packets.",
                                    kind: .counter, labels: one.labels, value: Double(one.sendErrors)))
        }
        out += reachSamples(copied, failures: failures)
        return out
    }

    /// The exporter page's rows: one per active series, in the order they began.
    public func pageRows(now: RealtimeInstant) -> [ContinuousTimelines.Row] {
        lock.withLock {
            zip(series, timelines).compactMap { one, timeline in
                guard one.active, let target = Self.target(one.labels) else { return nil }
                return ContinuousTimelines.row(target, timeline.steps, lastRoundTrip: timeline.lastRoundTrip, now: now)
            }
        }
    }

    /// The graph of the active series labelled `target` (the first, when groups repeat a
    /// host), or nil when there is none.
    public func graph(
        _ target: ContinuousTimelines.Target, range: TimeSpan, size: SmokeGraph.Size, now: RealtimeInstant
    ) -> [UInt8]? {
        let steps: LatencyTimeline? = lock.withLock {
            zip(series, timelines).first { $0.0.active && Self.target($0.0.labels) == target }?.1.steps
        }
        return steps.map { ContinuousTimelines.graph(target, $0, range: range, size: size, now: now) }
    }

    static func target(_ labels: [MetricSample.Label]) -> ContinuousTimelines.Target? {
        guard let host = labels.first(where: { $0.name == "host" })?.value, let ip = labels.first(where: { $0.name == "ip" })?.value
        else { return nil }
        return ContinuousTimelines.Target(host: host, ip: ip)
    }

    /// reach's own: each refused send's route type (`reach addr`'s reasons), and names that
    /// did not resolve.
    private func reachSamples(_ copied: [Series], failures: [(host: String, count: Int)]) -> [MetricSample] {
        var out: [MetricSample] = []
        for one in copied {
            for (index, reason) in UnreachableReason.allCases.enumerated() where one.refusals[index] > 0 {
                out.append(MetricSample("reach_smokeping_send_refusals_total",
                                        help: "Sends the kernel refused, by the route type behind the refusal.", kind: .counter,
                                        labels: (one.labels + [MetricSample.Label("reason", reason.rawValue)]).sorted { $0.name < $1.name },
                                        value: Double(one.refusals[index])))
            }
        }
        for failure in failures {
            out.append(MetricSample("reach_smokeping_resolution_failures_total",
                                    help: "Lookups of a target's name that gave no address.", kind: .counter,
                                    labels: [MetricSample.Label("host", failure.host)], value: Double(failure.count)))
        }
        return out
    }
}

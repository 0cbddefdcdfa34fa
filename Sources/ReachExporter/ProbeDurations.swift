import ReachCore
import ReachSystem

/// How long the probes took, per module, since the exporter started: the exporter's own
/// `reach_exporter_probe_duration_seconds` histogram on /metrics (classic buckets beside
/// native ones, the layout of smokeping_prober's response histogram), the data a Prometheus
/// with native histograms on reads as one series per module. Probes run on the pool's
/// threads, the scrape on an event loop: one lock around the histograms.
public final class ProbeDurations: @unchecked Sendable {
    public static let name = "reach_exporter_probe_duration_seconds"
    private let lock = Lock()
    private var histograms: [String: LatencyHistogram] = [:]
    private let layout: LatencyHistogram.Layout

    public init(layout: LatencyHistogram.Layout = .smokeping) {
        self.layout = layout
    }

    /// One probe of `module` that ran (whatever it found), for `duration`.
    public func record(module: String, duration: TimeSpan) {
        lock.withLock { histograms[module, default: LatencyHistogram(layout)].record(duration) }
    }

    /// One histogram sample per module that has run a probe, by module name.
    public var samples: [MetricSample] {
        let copies = lock.withLock { histograms }
        return copies.keys.sorted().map { module in
            MetricSample(
                Self.name, help: "How long the probes of a module took, in seconds.", labels: [.init("module", module)],
                histogram: copies[module]!)
        }
    }
}

import ReachCore
import ReachSystem

/// The recent probes the exporter's page lists, kept as blackbox_exporter 0.23 keeps them
/// (`prober/history.go`, ResultHistory): the last `limit` probes, and beside them up to `limit`
/// failures that have aged out of those, so a failure stays visible while successes flood in.
/// Ids count up from 0 in the order probes end.
///
/// Recording is a lock and an append: the log a person reads (`/logs?id=N`) is rendered
/// from the kept request and measurement when asked, not for every probe.
public final class ProbeHistory: @unchecked Sendable {
    /// One probe that ran, with what its log is rendered from. A class: its request holds the
    /// whole module (more than a kilobyte inline), and the history moves entries on every probe.
    public final class Entry: Sendable {
        public let id: Int
        public let request: ExporterRouter.ProbeRequest
        public let measurement: ProbeMeasurement
        public let started: RealtimeInstant

        init(id: Int, request: ExporterRouter.ProbeRequest, measurement: ProbeMeasurement, started: RealtimeInstant) {
            self.id = id
            self.request = request
            self.measurement = measurement
            self.started = started
        }

        public var moduleName: String { request.module.name }
        public var target: String { request.targetText }
        public var success: Bool { measurement.success }

        /// The probe's log, as `&debug=true` would have answered.
        public var log: [UInt8] {
            ProbeDebugOutput.render(request, target: request.targetText, measurement: measurement, started: started)
        }
    }

    private struct Kept {
        var nextID = 0
        var results: [Entry] = []
        var preservedFailures: [Entry] = []
    }

    /// `--history.limit`.
    public let limit: Int
    private let lock = Lock()
    private var kept = Kept()

    public init(limit: Int) {
        self.limit = max(limit, 0)
    }

    public func add(_ request: ExporterRouter.ProbeRequest, _ measurement: ProbeMeasurement, started: RealtimeInstant) {
        lock.withLock {
            kept.results.append(Entry(id: kept.nextID, request: request, measurement: measurement, started: started))
            kept.nextID += 1
            guard kept.results.count > limit else { return }
            let oldest = kept.results.removeFirst()
            if !oldest.success {
                kept.preservedFailures.append(oldest)
                if kept.preservedFailures.count > limit { kept.preservedFailures.removeFirst() }
            }
        }
    }

    /// Newest first, as blackbox's page lists them: the recent probes, then the failures kept
    /// from before them.
    public var newestFirst: [Entry] {
        lock.withLock { Array((kept.preservedFailures + kept.results).reversed()) }
    }

    public func entry(id: Int) -> Entry? {
        lock.withLock {
            kept.preservedFailures.first { $0.id == id } ?? kept.results.first { $0.id == id }
        }
    }
}

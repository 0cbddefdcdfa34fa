import ReachCore
import ReachSystem

/// `/metrics`' view of the machine: `reach watch`'s loop over the internet target, on a
/// thread of its own blocked in poll() on the kernel's netlink events (no polling of the
/// routes), each report it evaluates kept as `InternetMetrics` for the next scrape.
public final class LiveInternetState: @unchecked Sendable {
    private let lock = Lock()
    private var metrics: InternetMetrics
    private var failure: String?

    public init(probing: Bool) {
        metrics = InternetMetrics(probing: probing)
    }

    /// The samples as of now; nil before the first evaluation.
    public var samples: [MetricSample] {
        lock.withLock { metrics.samples }
    }

    /// Why the watch stopped, if it did (a netlink socket error).
    public var stopped: String? {
        lock.withLock { failure }
    }

    public func observe(_ report: ReachabilityReport, at time: RealtimeInstant) {
        lock.withLock { metrics.observe(report, at: time) }
    }

    /// Starts the watch on its own thread; `ended` runs there when it stops (SIGINT or
    /// SIGTERM, which the watch's signalfd takes, or a failure).
    public func start(probing: WatchProbing?, ended: @escaping @Sendable (WatchEnd?, String?) -> Void) throws {
        // As `reach watch` does: ModemManager's and NetworkManager's word on the links, their
        // signals waking the same poll() as the kernel's events.
        let linkFacts = BusLinkFacts.systemBus()
        let events = try KernelWatchEvents(readerDescriptor: nil, services: linkFacts)
        linkFacts.subscribe()
        let evaluator = try ReachabilityEvaluator.live(linkFacts: linkFacts)
        let loop = WatchLoop(
            target: .internet(families: []), configuration: WatchConfiguration(), resolveInterval: TimeSpan(milliseconds: 60_000),
            interface: nil, probing: probing, evaluator: evaluator, events: events)
        try DetachedThread.start { [self] in
            do {
                let end = try loop.run { event in
                    self.observe(event.current, at: event.time)
                    return true
                }
                ended(end, nil)
            } catch {
                let reason = "\(error)"
                self.lock.withLock { self.failure = reason }
                ended(nil, reason)
            }
        }
    }
}

import ReachCore
import ReachSystem

/// Where a continuous run's events go: each with the series its target stands for.
public protocol ContinuousPingObserver: AnyObject, Sendable {
    func observe(_ event: PingEvent, series: Int)
    /// Reading the sockets failed (the run starts again on them).
    func observeReceiveError()
}

/// The targets one continuous run probes, each with its pace and the series it counts in.
public struct ContinuousPlan: Equatable, Sendable {
    public var targets: [IPAddress]
    public var paces: [PingEngine.Pace]
    public var series: [Int]

    public init(targets: [IPAddress] = [], paces: [PingEngine.Pace] = [], series: [Int] = []) {
        self.targets = targets
        self.paces = paces
        self.series = series
    }
}

/// smokeping_prober's job on reach's one ping engine: every target of a plan probed by one
/// `PingLoop` on one thread, over one ICMP socket per family, for as long as the exporter
/// runs (fping's model: one poll(2) loop, round trips from the kernel's receive stamps).
/// A new plan (a name's addresses changed, the file was read again) interrupts the run,
/// which starts again on the same sockets with its sequence numbers going on.
public final class ContinuousPinger: @unchecked Sendable {
    private let transport: ICMPSocketGroup
    private let payloadSize: Int
    private let lock = Lock()
    private var pending: ContinuousPlan?

    /// Opens the sockets (a family whose socket cannot open: its sends are refused and
    /// counted); `source`: the address probes leave from.
    public init(source: IPAddress?, payloadSize: Int) {
        transport = ICMPSocketGroup(keepingFailures: [.ipv4, .ipv6], options: ICMPSocketOptions(sourceAddress: source))
        self.payloadSize = payloadSize
    }

    /// Starts the run's thread; it runs until the process ends.
    public func start(reportingTo observer: ContinuousPingObserver) throws(SystemCallError) {
        try DetachedThread.start { [self] in run(observer) }
    }

    /// Probes `plan`'s targets from now on.
    public func replace(with plan: ContinuousPlan) {
        lock.withLock { pending = plan }
        transport.interrupt()
    }

    /// Sleeps the calling thread (poll(2) on nothing): the lookups' thread between turns, a
    /// run with no target before it looks for a plan again.
    public static func rest(for span: TimeSpan) {
        _ = try? Poll.wait([], timeout: span)
    }

    private func takePending() -> ContinuousPlan? {
        lock.withLock {
            defer { pending = nil }
            return pending
        }
    }

    private func run(_ observer: ContinuousPingObserver) {
        var plan = ContinuousPlan()
        var nextNumber = 0
        let clock = SystemClock()
        while true {
            if let next = takePending() { plan = next }
            guard !plan.targets.isEmpty else {
                // Nothing to probe: look again shortly (a plan comes with an interruption,
                // but no loop is waiting on it).
                Self.rest(for: .milliseconds(250))
                continue
            }
            let engine = PingEngine(
                continuous: plan.targets, paces: plan.paces,
                identifiers: (transport.identifier(for: .ipv4), transport.identifier(for: .ipv6)),
                configuration: PingConfiguration(interval: .zero, payloadSize: payloadSize), start: clock.monotonicNow,
                firstNumber: nextNumber)
            var loop = PingLoop(engine: engine, transport: transport, clock: clock)
            let series = plan.series
            do {
                try loop.run { event in
                    guard let target = event.probeTarget else { return }
                    observer.observe(event, series: series[target])
                }
            } catch {
                observer.observeReceiveError()
                // A failing socket is not read again at once, in a loop of failures.
                Self.rest(for: .milliseconds(100))
            }
            nextNumber = loop.engine.followingNumber
        }
    }
}

extension PingEvent {
    /// The target the event is about, by its position in the run; nil for the run's own.
    var probeTarget: Int? {
        switch self {
        case .sent(let probe, _), .sendFailed(let probe, _), .timedOut(let probe), .localError(let probe, _, _): probe.target
        case .reply(let reply): reply.probe.target
        case .icmpError(let error): error.probe.target
        default: nil
        }
    }
}

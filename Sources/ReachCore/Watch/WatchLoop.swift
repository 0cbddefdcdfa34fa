import ReachSystem

/// The orchestration of `watch`: evaluates the target when the kernel reports a change,
/// looks a host name up again on its schedule, runs connectivity checks, and feeds every
/// report to the state machine, which decides what is printed and when the watch ends.
/// It waits through a `WatchEventSource`, with the next deadline the user asked for
/// (settle, timeout, resolve interval, probe interval) as the timeout, else none: while
/// nothing changes it does not wake at all.
public final class WatchLoop {
    /// How long the first lookup of a name may take before "no answer yet" is shown.
    static let resolutionPatience = TimeSpan(milliseconds: 5000)
    /// The least time between two evaluations while messages keep coming.
    static let burstHoldoff = TimeSpan(milliseconds: 5)

    public let target: WatchTarget
    public let configuration: WatchConfiguration
    public let resolveInterval: TimeSpan
    public let interface: String?
    /// `--probe`: connectivity is checked and is part of the compared state.
    public let probing: WatchProbing?
    private let evaluator: ReachabilityEvaluator
    private let events: WatchEventSource
    public private(set) var statistics = WatchStatistics()

    public init(
        target: WatchTarget, configuration: WatchConfiguration, resolveInterval: TimeSpan, interface: String?,
        probing: WatchProbing? = nil, evaluator: ReachabilityEvaluator, events: WatchEventSource
    ) {
        self.target = target
        self.configuration = configuration
        self.resolveInterval = resolveInterval
        self.interface = interface
        self.probing = probing
        self.evaluator = evaluator
        self.events = events
    }

    /// Runs until the state machine, a signal or the reader ends it. `emit` writes an event
    /// and answers whether it is still being read: a write that finds the reader gone ends
    /// the watch.
    public func run(emit: (WatchEvent) -> Bool) throws -> WatchEnd {
        let events = self.events
        var now = events.now().monotonic
        var machine = WatchStateMachine(configuration: configuration, startedAt: now)
        var schedule = ResolutionSchedule(interval: resolveInterval, patience: Self.resolutionPatience, now: now)
        var pacer = EvaluationPacer(holdoff: Self.burstHoldoff)
        var outcome: ResolutionOutcome?
        var connectivity = probing.map { WatchConnectivity(schedule: ProbeSchedule(interval: $0.interval)) }
        var checking = false
        var readerGone = false

        func forward(_ observed: (report: ReachabilityReport, since: WatchInstant)?) {
            guard let observed else { return }
            for event in machine.observe(observed.report, at: observed.since) where !emit(event) { readerGone = true }
        }
        /// `afterChange`: a route or link change caused this evaluation (probes run again).
        func observe(_ report: ReachabilityReport, afterChange: Bool) {
            // The time of a change is when its first message was seen, not when it was evaluated.
            let instant = pacer.evaluated(at: events.now().monotonic) ?? events.now()
            var report = report
            if let interface { report = report.restricted(toInterface: interface) }
            guard var tracker = connectivity else { return forward((report, instant)) }
            let observed = tracker.evaluated(report, afterChange: afterChange, at: instant)
            connectivity = tracker
            forward(observed)
        }
        func evaluateAndObserve(afterChange: Bool) throws {
            switch target {
            case .internet(let families):
                statistics.evaluations += 1
                observe(try evaluator.evaluateInternet(families: families), afterChange: afterChange)
            case .address(let address):
                statistics.evaluations += 1
                observe(try evaluator.evaluate(address: address), afterChange: afterChange)
            case .host(let name, _):
                guard let outcome else {
                    _ = pacer.evaluated(at: events.now().monotonic)  // the first answer is still on its way
                    return
                }
                statistics.evaluations += 1
                observe(try evaluator.evaluate(host: name, outcome: outcome), afterChange: afterChange)
            }
        }

        try evaluateAndObserve(afterChange: false)
        while true {
            if case .host(let name, let family) = target {
                if schedule.shouldStart(at: now) {
                    try events.startLookup(name: name, family: family)
                    schedule.started(at: now)
                    statistics.lookups += 1
                }
                if outcome == nil, schedule.patienceExpired(at: now) {
                    let waited = "no answer within \(Self.resolutionPatience.seconds) s"
                    statistics.evaluations += 1
                    observe(try evaluator.evaluate(host: name, outcome: .notResolved(waited)), afterChange: false)
                    schedule.spendPatience()  // the lookup goes on; its answer replaces this state
                }
            }
            if pacer.isDue(at: now) { try evaluateAndObserve(afterChange: true) }
            for event in machine.advance(to: now) where !emit(event) { readerGone = true }
            if readerGone { machine.stop(.readerGone) }
            if let end = machine.end { return end }
            // One check at a time, on its own thread: the loop never waits for a probe.
            if let probing, !checking, connectivity?.shouldStart(at: now) == true {
                try events.startCheck(probing.checker)
                checking = true
                connectivity?.started(at: now)
                statistics.checks += 1
            }

            let deadlines = [
                machine.nextDeadline, pacer.nextDeadline, target.isHost ? schedule.nextDeadline : nil, connectivity?.nextDeadline,
            ].compactMap { $0 }
            let timeout = deadlines.min().map { Int32(clamping: max(0, $0 - now)) }
            let inputs = try events.wait(timeoutMilliseconds: timeout)
            statistics.wakeUps += 1
            now = events.now().monotonic

            for input in inputs {
                switch input {
                case .readerGone:
                    return .readerGone
                case .interrupted:
                    machine.stop(.interrupted)
                    return .interrupted
                case .kernelChanged(let drain):
                    statistics.drains += 1
                    statistics.datagrams += drain.datagrams
                    statistics.messages += drain.messages
                    if drain.overrun { statistics.overruns += 1 }
                    if drain.sawChange {
                        schedule.requestRefresh()
                        if pacer.changeSeen(at: events.now()) { try evaluateAndObserve(afterChange: true) }
                    }
                case .servicesChanged:
                    if pacer.changeSeen(at: events.now()) { try evaluateAndObserve(afterChange: true) }
                case .resolved(let answer):
                    outcome = answer
                    now = events.now().monotonic
                    schedule.finished(at: now)
                    try evaluateAndObserve(afterChange: false)
                case .checked(let answer):
                    checking = false
                    // A probe that cannot run (no ICMP permission) ends the watch with its error.
                    let verdict = try answer.get()
                    forward(connectivity?.checkFinished(verdict, at: events.now()) ?? nil)
                    now = events.now().monotonic
                }
            }
        }
    }
}

/// `watch --probe`: the checker and the interval between checks (the start of ProbeSchedule's backoff).
public struct WatchProbing: Sendable {
    public var checker: ConnectivityChecker
    public var interval: TimeSpan

    public init(checker: ConnectivityChecker, interval: TimeSpan) {
        self.checker = checker
        self.interval = interval
    }
}

extension WatchTarget {
    var isHost: Bool {
        if case .host = self { return true }
        return false
    }
}

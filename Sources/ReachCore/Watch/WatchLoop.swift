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

    /// What is watched; several targets share the netlink socket, the evaluations and the
    /// one stream of events.
    public let targets: [WatchTarget]
    /// With several targets, `--until` holds when any target's state satisfies it, not all.
    public let any: Bool
    public let configuration: WatchConfiguration
    public let resolveInterval: TimeSpan
    public let interface: String?
    /// `--probe`: connectivity is checked and is part of the compared state (one target).
    public let probing: WatchProbing?
    private let evaluator: ReachabilityEvaluator
    private let events: WatchEventSource
    public private(set) var statistics = WatchStatistics()

    /// At most this many names are looked up at once; the others wait their turn.
    static let concurrentLookups = 8

    public var target: WatchTarget { targets[0] }

    public convenience init(
        target: WatchTarget, configuration: WatchConfiguration, resolveInterval: TimeSpan, interface: String?,
        probing: WatchProbing? = nil, evaluator: ReachabilityEvaluator, events: WatchEventSource
    ) {
        self.init(
            targets: [target], any: false, configuration: configuration, resolveInterval: resolveInterval, interface: interface,
            probing: probing, evaluator: evaluator, events: events)
    }

    public init(
        targets: [WatchTarget], any: Bool, configuration: WatchConfiguration, resolveInterval: TimeSpan, interface: String?,
        probing: WatchProbing? = nil, evaluator: ReachabilityEvaluator, events: WatchEventSource
    ) {
        precondition(!targets.isEmpty, "at least one target")
        precondition(targets.count == 1 || probing == nil, "probes watch one target")
        self.targets = targets
        self.any = any
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
    ///
    /// One target's state machine decides everything itself. With several, each target's
    /// machine only settles its changes, and the watch's end is decided by `WatchRun`:
    /// `--until` when every target's reported state satisfies it (with `any`, one target's),
    /// `--count` changes over all targets, `--timeout` from the start.
    ///
    /// Each turn: start the lookups that are due, show a first lookup's lost patience,
    /// evaluate what the pacer held back, let time pass in the machines, write, see whether
    /// the watch is over, start a due check, then wait and handle what woke the loop.
    public func run(emit: (WatchEvent) -> Bool) throws -> WatchEnd {
        var run = WatchRun(
            targets: targets.count, any: any, configuration: configuration, resolveInterval: resolveInterval,
            patience: Self.resolutionPatience, holdoff: Self.burstHoldoff, probing: probing, now: events.now().monotonic)
        try evaluateAll(&run, afterChange: false)
        while true {
            try startLookups(&run)
            try showLostPatience(&run)
            if run.pacer.isDue(at: run.now) { try evaluateAll(&run, afterChange: true) }
            advance(&run)
            write(&run, emit)
            if let end = run.end() {
                write(&run, emit)
                return end
            }
            try startCheck(&run)
            let inputs = try events.wait(timeout: run.waitTimeout(hosts: targets.map(\.isHost)))
            statistics.wakeUps += 1
            run.now = events.now().monotonic
            for input in inputs {
                let end = try handle(input, &run)
                write(&run, emit)
                if let end { return end }
            }
        }
    }

    /// Writes the lines that are ready; a write that finds the reader gone is remembered
    /// (the end is decided by `WatchRun.end`).
    func write(_ run: inout WatchRun, _ emit: (WatchEvent) -> Bool) {
        for event in run.lines.take() where !emit(event) { run.readerGone = true }
    }

    /// Starts the lookups that are due, at most `concurrentLookups` at once.
    func startLookups(_ run: inout WatchRun) throws {
        var lookingUp = run.schedules.reduce(0) { $0 + ($1.isInFlight ? 1 : 0) }
        for index in targets.indices where lookingUp < Self.concurrentLookups {
            guard case .host(let name, let family) = targets[index], run.schedules[index].shouldStart(at: run.now) else { continue }
            try events.startLookup(name: name, family: family)
            run.schedules[index].started(at: run.now)
            statistics.lookups += 1
            lookingUp += 1
        }
    }

    /// A name whose first lookup has not answered within `resolutionPatience` is shown as
    /// not resolved; the lookup goes on, and its answer replaces this state.
    func showLostPatience(_ run: inout WatchRun) throws {
        for index in targets.indices {
            guard case .host(let name, _) = targets[index], run.outcomes[index] == nil,
                run.schedules[index].patienceExpired(at: run.now)
            else { continue }
            let waited = "no answer within \(Self.resolutionPatience.secondsText) s"
            statistics.evaluations += 1
            var instant: WatchInstant?
            let report = try evaluator.evaluate(host: name, outcome: .notResolved(waited))
            observe(&run, index, report, afterChange: false, instant: &instant)
            run.schedules[index].spendPatience()
        }
    }

    /// Lets time pass in every target's machine (settled changes, the timeout).
    func advance(_ run: inout WatchRun) {
        for index in targets.indices {
            for event in run.machines[index].advance(to: run.now) { run.report(index, event) }
        }
    }

    /// One check at a time, on its own thread: the loop never waits for a probe.
    func startCheck(_ run: inout WatchRun) throws {
        guard let probing, !run.checking, run.connectivity?.shouldStart(at: run.now) == true else { return }
        try events.startCheck(probing.checker)
        run.checking = true
        run.connectivity?.started(at: run.now)
        statistics.checks += 1
    }

    /// Handles one input of a wait; the end of the watch when the input ends it.
    func handle(_ input: WatchInput, _ run: inout WatchRun) throws -> WatchEnd? {
        switch input {
        case .readerGone:
            return .readerGone
        case .interrupted:
            return run.interrupt()
        case .kernelChanged(let drain):
            statistics.drains += 1
            statistics.datagrams += drain.datagrams
            statistics.messages += drain.messages
            if drain.overrun { statistics.overruns += 1 }
            guard drain.sawChange else { return nil }
            for index in targets.indices { run.schedules[index].requestRefresh() }
            if run.pacer.changeSeen(at: events.now()) { try evaluateAll(&run, afterChange: true) }
        case .servicesChanged:
            if run.pacer.changeSeen(at: events.now()) { try evaluateAll(&run, afterChange: true) }
        case .resolved(let answer, let name):
            try resolved(answer, name: name, &run)
        case .checked(let answer):
            run.checking = false
            // A probe that cannot run (no ICMP permission) ends the watch with its error.
            let verdict = try answer.get()
            forward(&run, 0, run.connectivity?.checkFinished(verdict, at: events.now()) ?? nil)
            run.now = events.now().monotonic
        }
        return nil
    }

    /// A lookup answered: every target with that name that waited for it is evaluated.
    func resolved(_ answer: ResolutionOutcome, name: String, _ run: inout WatchRun) throws {
        run.now = events.now().monotonic
        for index in targets.indices {
            guard case .host(name, _) = targets[index], run.schedules[index].isInFlight else { continue }
            run.outcomes[index] = answer
            run.schedules[index].finished(at: run.now)
            var instant: WatchInstant?
            try evaluateAndObserve(&run, index, afterChange: false, instant: &instant)
            if instant == nil { markEvaluated(&run) }
        }
    }

    /// Evaluates every target. `afterChange`: a route or link change caused it (probes run again).
    func evaluateAll(_ run: inout WatchRun, afterChange: Bool) throws {
        var instant: WatchInstant?
        for index in targets.indices { try evaluateAndObserve(&run, index, afterChange: afterChange, instant: &instant) }
        if instant == nil { markEvaluated(&run) }
    }

    /// No report reached the pacer (a name not yet answered): it still learns that an
    /// evaluation ran, and the change time it returns has no report to go with.
    private func markEvaluated(_ run: inout WatchRun) {
        _ = run.pacer.evaluated(at: events.now().monotonic)
    }

    func evaluateAndObserve(_ run: inout WatchRun, _ index: Int, afterChange: Bool, instant: inout WatchInstant?) throws {
        let report: ReachabilityReport
        switch targets[index] {
        case .internet(let families):
            report = try evaluator.evaluateInternet(families: families)
        case .address(let address):
            report = try evaluator.evaluate(address: address)
        case .host(let name, _):
            guard let outcome = run.outcomes[index] else { return }  // the first answer is still on its way
            report = try evaluator.evaluate(host: name, outcome: outcome)
        }
        statistics.evaluations += 1
        observe(&run, index, report, afterChange: afterChange, instant: &instant)
    }

    /// `instant`: the time of the round's change, taken from the pacer by its first evaluation.
    func observe(_ run: inout WatchRun, _ index: Int, _ report: ReachabilityReport, afterChange: Bool, instant: inout WatchInstant?) {
        // The time of a change is when its first message was seen, not when it was evaluated.
        let at = instant ?? run.pacer.evaluated(at: events.now().monotonic) ?? events.now()
        instant = at
        var report = report
        if let interface { report = report.restricted(toInterface: interface) }
        guard var tracker = run.connectivity else { return forward(&run, index, (report, at)) }
        let observed = tracker.evaluated(report, afterChange: afterChange, at: at)
        run.connectivity = tracker
        forward(&run, index, observed)
    }

    func forward(_ run: inout WatchRun, _ index: Int, _ observed: (report: ReachabilityReport, since: WatchInstant)?) {
        guard let observed else { return }
        for event in run.machines[index].observe(observed.report, at: observed.since) { run.report(index, event) }
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

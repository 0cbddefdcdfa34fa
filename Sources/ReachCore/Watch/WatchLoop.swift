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
    /// machine only settles its changes, and the watch's end is decided here: `--until`
    /// when every target's reported state satisfies it (with `any`, one target's),
    /// `--count` changes over all targets, `--timeout` from the start.
    public func run(emit: (WatchEvent) -> Bool) throws -> WatchEnd {
        let events = self.events
        let targets = self.targets
        let several = targets.count > 1
        var now = events.now().monotonic
        let perTarget = several ? WatchConfiguration(settle: configuration.settle) : configuration
        var machines = targets.map { _ in WatchStateMachine(configuration: perTarget, startedAt: now) }
        var schedules = targets.map { _ in ResolutionSchedule(interval: resolveInterval, patience: Self.resolutionPatience, now: now) }
        var outcomes = [ResolutionOutcome?](repeating: nil, count: targets.count)
        var pacer = EvaluationPacer(holdoff: Self.burstHoldoff)
        var connectivity = probing.map { WatchConnectivity(schedule: ProbeSchedule(interval: $0.interval)) }
        var checking = false
        var readerGone = false
        let timeoutDeadline = several ? configuration.timeout.map { now + $0 } : nil
        var changes = 0
        var severalEnd: WatchEnd?

        /// Several targets: whether the watch is over after an event.
        func judge(_ event: WatchEvent) {
            guard several, severalEnd == nil else { return }
            if event.kind == .change { changes += 1 }
            if let until = configuration.until {
                let holds = machines.map { $0.reportedState.map(until.holds) ?? false }
                if any ? holds.contains(true) : holds.allSatisfy({ $0 }) {
                    severalEnd = .conditionMet
                    return
                }
            }
            if let count = configuration.count, changes >= count { severalEnd = .countReached }
        }
        // A target's lines wait until every target before it has shown its first, so the first
        // lines come in the order given, whatever order the names resolve in (a name's first
        // line waits at most `resolutionPatience`). `shownFirst`: the targets, from the first,
        // whose first line is out.
        var shownFirst = 0
        var held = [[WatchEvent]](repeating: [], count: targets.count)
        func write(_ event: WatchEvent) {
            if !emit(event) { readerGone = true }
        }
        func show(_ index: Int, _ event: WatchEvent) {
            guard index <= shownFirst else { return held[index].append(event) }
            write(event)
            guard index == shownFirst else { return }
            shownFirst += 1
            while shownFirst < held.count, !held[shownFirst].isEmpty {
                held[shownFirst].forEach(write)
                held[shownFirst] = []
                shownFirst += 1
            }
        }
        /// The watch ends: what waits is written, in the order of the targets.
        func release() {
            for index in held.indices { held[index].forEach(write) }
            held = held.map { _ in [] }
        }
        func forward(_ index: Int, _ observed: (report: ReachabilityReport, since: WatchInstant)?) {
            guard let observed else { return }
            for event in machines[index].observe(observed.report, at: observed.since) {
                show(index, event)
                judge(event)
            }
        }
        /// `afterChange`: a route or link change caused this evaluation (probes run again).
        /// `instant`: the time of the round's change, taken from the pacer by its first evaluation.
        func observe(_ index: Int, _ report: ReachabilityReport, afterChange: Bool, instant: inout WatchInstant?) {
            // The time of a change is when its first message was seen, not when it was evaluated.
            let at = instant ?? pacer.evaluated(at: events.now().monotonic) ?? events.now()
            instant = at
            var report = report
            if let interface { report = report.restricted(toInterface: interface) }
            guard var tracker = connectivity else { return forward(index, (report, at)) }
            let observed = tracker.evaluated(report, afterChange: afterChange, at: at)
            connectivity = tracker
            forward(index, observed)
        }
        func evaluateAndObserve(_ index: Int, afterChange: Bool, instant: inout WatchInstant?) throws {
            switch targets[index] {
            case .internet(let families):
                statistics.evaluations += 1
                observe(index, try evaluator.evaluateInternet(families: families), afterChange: afterChange, instant: &instant)
            case .address(let address):
                statistics.evaluations += 1
                observe(index, try evaluator.evaluate(address: address), afterChange: afterChange, instant: &instant)
            case .host(let name, _):
                guard let outcome = outcomes[index] else { return }  // the first answer is still on its way
                statistics.evaluations += 1
                observe(index, try evaluator.evaluate(host: name, outcome: outcome), afterChange: afterChange, instant: &instant)
            }
        }
        func evaluateAll(afterChange: Bool) throws {
            var instant: WatchInstant?
            for index in targets.indices { try evaluateAndObserve(index, afterChange: afterChange, instant: &instant) }
            if instant == nil { _ = pacer.evaluated(at: events.now().monotonic) }
        }

        try evaluateAll(afterChange: false)
        while true {
            var lookingUp = schedules.reduce(0) { $0 + ($1.isInFlight ? 1 : 0) }
            for index in targets.indices {
                guard case .host(let name, let family) = targets[index] else { continue }
                if lookingUp < Self.concurrentLookups, schedules[index].shouldStart(at: now) {
                    try events.startLookup(name: name, family: family)
                    schedules[index].started(at: now)
                    statistics.lookups += 1
                    lookingUp += 1
                }
                if outcomes[index] == nil, schedules[index].patienceExpired(at: now) {
                    let waited = "no answer within \(Self.resolutionPatience.seconds) s"
                    statistics.evaluations += 1
                    var instant: WatchInstant?
                    observe(index, try evaluator.evaluate(host: name, outcome: .notResolved(waited)), afterChange: false, instant: &instant)
                    schedules[index].spendPatience()  // the lookup goes on; its answer replaces this state
                }
            }
            if pacer.isDue(at: now) { try evaluateAll(afterChange: true) }
            for index in targets.indices {
                for event in machines[index].advance(to: now) {
                    show(index, event)
                    judge(event)
                }
            }
            if several {
                if severalEnd == nil, let timeoutDeadline, now >= timeoutDeadline { severalEnd = .timedOut }
                if readerGone { return .readerGone }
                if let severalEnd {
                    release()
                    return severalEnd
                }
            } else {
                if readerGone { machines[0].stop(.readerGone) }
                if let end = machines[0].end { return end }
            }
            // One check at a time, on its own thread: the loop never waits for a probe.
            if let probing, !checking, connectivity?.shouldStart(at: now) == true {
                try events.startCheck(probing.checker)
                checking = true
                connectivity?.started(at: now)
                statistics.checks += 1
            }

            var deadlines = machines.compactMap(\.nextDeadline)
            deadlines += [pacer.nextDeadline, connectivity?.nextDeadline, timeoutDeadline].compactMap { $0 }
            for index in targets.indices where targets[index].isHost {
                if let deadline = schedules[index].nextDeadline { deadlines.append(deadline) }
            }
            let inputs = try events.wait(timeout: deadlines.min().map { $0.remaining(from: now) })
            statistics.wakeUps += 1
            now = events.now().monotonic

            for input in inputs {
                switch input {
                case .readerGone:
                    return .readerGone
                case .interrupted:
                    if !several { machines[0].stop(.interrupted) }
                    release()
                    return .interrupted
                case .kernelChanged(let drain):
                    statistics.drains += 1
                    statistics.datagrams += drain.datagrams
                    statistics.messages += drain.messages
                    if drain.overrun { statistics.overruns += 1 }
                    if drain.sawChange {
                        for index in targets.indices { schedules[index].requestRefresh() }
                        if pacer.changeSeen(at: events.now()) { try evaluateAll(afterChange: true) }
                    }
                case .servicesChanged:
                    if pacer.changeSeen(at: events.now()) { try evaluateAll(afterChange: true) }
                case .resolved(let answer, let name):
                    now = events.now().monotonic
                    for index in targets.indices {
                        guard case .host(name, _) = targets[index], schedules[index].isInFlight else { continue }
                        outcomes[index] = answer
                        schedules[index].finished(at: now)
                        var instant: WatchInstant?
                        try evaluateAndObserve(index, afterChange: false, instant: &instant)
                        if instant == nil { _ = pacer.evaluated(at: events.now().monotonic) }
                    }
                case .checked(let answer):
                    checking = false
                    // A probe that cannot run (no ICMP permission) ends the watch with its error.
                    let verdict = try answer.get()
                    forward(0, connectivity?.checkFinished(verdict, at: events.now()) ?? nil)
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

import ReachSystem

/// Everything one run of `WatchLoop` changes as it goes, in one place: each of the loop's
/// steps reads and updates it, and the parts that decide without side effects (the order of
/// the lines, the end of a watch over several targets) are methods here, tested alone.
struct WatchRun {
    let configuration: WatchConfiguration
    /// With several targets, `--until` holds when any target's state satisfies it.
    let any: Bool
    /// Several targets: each machine only settles its target's changes; the end is decided here.
    let several: Bool
    /// The time of the current step, read after each wait.
    var now: MonotonicInstant
    var machines: [WatchStateMachine]
    var schedules: [ResolutionSchedule]
    /// Each host target's latest lookup outcome; nil until its first answer.
    var outcomes: [ResolutionOutcome?]
    var pacer: EvaluationPacer
    /// `--probe`'s connectivity (one target).
    var connectivity: WatchConnectivity?
    /// A connectivity check runs on its own thread.
    var checking = false
    /// A write found the reader of the output gone.
    var readerGone = false
    /// Several targets: the whole watch's `--timeout`.
    let timeoutDeadline: MonotonicInstant?
    /// Several targets: changes reported over all of them, for `--count`.
    var changes = 0
    /// Several targets: why the watch ends, once decided.
    var severalEnd: WatchEnd?
    var lines: WatchLineOrder

    init(
        targets: Int, any: Bool, configuration: WatchConfiguration, resolveInterval: TimeSpan, patience: TimeSpan,
        holdoff: TimeSpan, probing: WatchProbing?, now: MonotonicInstant
    ) {
        several = targets > 1
        self.any = any
        self.configuration = configuration
        self.now = now
        let perTarget = several ? WatchConfiguration(settle: configuration.settle) : configuration
        machines = Array(repeating: WatchStateMachine(configuration: perTarget, startedAt: now), count: targets)
        schedules = Array(repeating: ResolutionSchedule(interval: resolveInterval, patience: patience, now: now), count: targets)
        outcomes = Array(repeating: nil, count: targets)
        pacer = EvaluationPacer(holdoff: holdoff)
        connectivity = probing.map { WatchConnectivity(schedule: ProbeSchedule(interval: $0.interval)) }
        timeoutDeadline = several ? configuration.timeout.map { now + $0 } : nil
        lines = WatchLineOrder(targets: targets)
    }

    /// Target `index`'s machine produced `event`: it is shown (in order) and, with several
    /// targets, counted towards the end.
    mutating func report(_ index: Int, _ event: WatchEvent) {
        lines.show(index, event)
        judge(event)
    }

    /// Several targets: whether the watch is over after an event (`--until` over every
    /// target's reported state, or any one's; `--count` over all changes).
    mutating func judge(_ event: WatchEvent) {
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

    /// How the watch ends at `now`, if it does: `--timeout` over several targets, the reader
    /// gone, or a machine's end. What still waits to be shown is released first.
    mutating func end() -> WatchEnd? {
        guard several else {
            if readerGone { machines[0].stop(.readerGone) }
            return machines[0].end
        }
        if severalEnd == nil, let timeoutDeadline, now >= timeoutDeadline { severalEnd = .timedOut }
        if readerGone { return .readerGone }
        guard let severalEnd else { return nil }
        lines.release()
        return severalEnd
    }

    /// SIGINT or SIGTERM: what waits is shown, and the watch ends.
    mutating func interrupt() -> WatchEnd {
        if !several { machines[0].stop(.interrupted) }
        lines.release()
        return .interrupted
    }

    /// How long the loop may wait: until the earliest deadline of the machines, the pacer,
    /// the probes, the timeout and the host lookups; nil (no limit) when there is none.
    func waitTimeout(hosts: [Bool]) -> TimeSpan? {
        var deadlines = machines.compactMap(\.nextDeadline)
        deadlines += [pacer.nextDeadline, connectivity?.nextDeadline, timeoutDeadline].compactMap { $0 }
        for index in hosts.indices where hosts[index] {
            if let deadline = schedules[index].nextDeadline { deadlines.append(deadline) }
        }
        return deadlines.min().map { $0.remaining(from: now) }
    }
}

/// The order of `watch`'s lines over several targets: a target's lines wait until every
/// target before it has shown its first, so the first lines come in the order given, whatever
/// order the names resolve in (a name's first line waits at most the lookup's patience).
struct WatchLineOrder {
    /// The targets, from the first, whose first line is out.
    private(set) var shownFirst = 0
    private var held: [[WatchEvent]]
    /// Lines ready to be written, in order.
    private(set) var ready: [WatchEvent] = []

    init(targets: Int) {
        held = Array(repeating: [], count: targets)
    }

    mutating func show(_ index: Int, _ event: WatchEvent) {
        guard index <= shownFirst else { return held[index].append(event) }
        ready.append(event)
        guard index == shownFirst else { return }
        shownFirst += 1
        while shownFirst < held.count, !held[shownFirst].isEmpty {
            ready += held[shownFirst]
            held[shownFirst] = []
            shownFirst += 1
        }
    }

    /// The watch ends: what waits is ready, in the order of the targets.
    mutating func release() {
        for index in held.indices { ready += held[index] }
        held = held.map { _ in [] }
    }

    /// The lines ready to be written; they are no longer held here.
    mutating func take() -> [WatchEvent] {
        defer { ready = [] }
        return ready
    }
}

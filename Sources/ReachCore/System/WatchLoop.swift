#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// The event loop of `watch`: one thread blocked in poll() over the rtnetlink multicast
/// socket, stdout, a signalfd and, while a name lookup or a connectivity check runs, its
/// readiness pipe. The poll timeout is the next deadline the user asked for (settle,
/// timeout, resolve interval, probe interval), else infinite: while nothing changes the
/// process does not wake at all. No Dispatch or Swift concurrency: an idle Task woke a worker every second (docs/LINUX-FACTS.md).
public final class WatchLoop {
    /// The groups whose changes can change a verdict: links, addresses, routes, rules.
    static let groups: [UInt32] = [
        RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR, RTNLGRP_IPV4_ROUTE,
        RTNLGRP_IPV6_ROUTE, RTNLGRP_IPV4_RULE, RTNLGRP_IPV6_RULE,
    ].map { UInt32($0.rawValue) }
    /// Room for a burst of thousands of route messages before the kernel drops any.
    public static let defaultReceiveBufferSize: Int32 = 8 << 20
    /// How long the first lookup of a name may take before "no answer yet" is shown.
    static let resolutionPatience = TimeSpan(milliseconds: 5000)
    /// The least time between two evaluations while messages keep coming.
    static let burstHoldoff = TimeSpan(milliseconds: 5)

    public let target: WatchTarget
    public let configuration: WatchConfiguration
    public let resolveInterval: TimeSpan
    public let interface: String?
    /// The multicast socket's receive buffer (a test shrinks it to force ENOBUFS).
    public var receiveBufferSize = WatchLoop.defaultReceiveBufferSize
    /// `--probe`: connectivity is checked and is part of the compared state.
    public var probing: WatchProbing?
    private let evaluator: ReachabilityEvaluator
    private let output: OutputChannel
    public private(set) var statistics = WatchStatistics()

    public init(target: WatchTarget, configuration: WatchConfiguration, resolveInterval: TimeSpan,
                interface: String?, evaluator: ReachabilityEvaluator, output: OutputChannel = .standard) {
        self.target = target
        self.configuration = configuration
        self.resolveInterval = resolveInterval
        self.interface = interface
        self.evaluator = evaluator
        self.output = output
    }

    /// Runs until the state machine, a signal or the reader ends it. `emit` writes an
    /// event to `output`; a write that finds the reader gone ends the watch.
    public func run(emit: (WatchEvent) -> Void) throws -> WatchEnd {
        // Signals first, so the resolver threads started later inherit the blocked mask.
        let signals = try System.signalDescriptor(for: [SIGINT, SIGTERM])
        defer { System.close(signals) }
        // Subscribe before the first evaluation: a change in between is then not lost.
        let monitor = try NetlinkSocket()
        System.setReceiveBuffer(monitor.fileDescriptor, to: receiveBufferSize)
        for group in Self.groups { try monitor.join(group: group) }

        var now = System.monotonicMilliseconds()
        var machine = WatchStateMachine(configuration: configuration, startedAt: now)
        var schedule = ResolutionSchedule(interval: resolveInterval, patience: Self.resolutionPatience, now: now)
        var pacer = EvaluationPacer(holdoff: Self.burstHoldoff)
        var lookup: HostResolution?
        var outcome: ResolutionOutcome?
        var connectivity = probing.map { WatchConnectivity(schedule: ProbeSchedule(interval: $0.interval)) }
        var check: BackgroundJob<Result<ConnectivityReport, Error>>?

        func forward(_ observed: (report: ReachabilityReport, since: WatchInstant)?) {
            guard let observed else { return }
            for event in machine.observe(observed.report, at: observed.since) { emit(event) }
        }
        /// `afterChange`: a route or link change caused this evaluation (probes run again).
        func observe(_ report: ReachabilityReport, afterChange: Bool) {
            // The time of a change is when its first message was seen, not when it was evaluated.
            let instant = pacer.evaluated(at: System.monotonicMilliseconds()) ?? Self.now()
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
                    _ = pacer.evaluated(at: System.monotonicMilliseconds()) // the first answer is still on its way
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
                    lookup = try HostResolution(name: name, family: family)
                    schedule.started(at: now)
                    statistics.lookups += 1
                }
                if outcome == nil, schedule.patienceExpired(at: now) {
                    let waited = "no answer within \(Self.resolutionPatience.seconds) s"
                    statistics.evaluations += 1
                    observe(try evaluator.evaluate(host: name, outcome: .notResolved(waited)), afterChange: false)
                    schedule.spendPatience() // the lookup goes on; its answer replaces this state
                }
            }
            if pacer.isDue(at: now) { try evaluateAndObserve(afterChange: true) }
            for event in machine.advance(to: now) { emit(event) }
            if output.readerGone { machine.stop(.readerGone) }
            if let end = machine.end { return end }
            // One check at a time, on its own thread: the loop never waits for a probe.
            if let probing, check == nil, connectivity?.shouldStart(at: now) == true {
                let checker = probing.checker
                check = try BackgroundJob { Result { try checker.check(routeUsable: true) } }
                connectivity?.started(at: now)
                statistics.checks += 1
            }

            let deadlines = [
                machine.nextDeadline, pacer.nextDeadline, target.isHost ? schedule.nextDeadline : nil, connectivity?.nextDeadline,
            ].compactMap { $0 }
            let timeout = deadlines.min().map { Int32(clamping: max(0, $0 - now)) } ?? -1
            var descriptors: [(fd: Int32, events: Int16)] = [
                (monitor.fileDescriptor, Int16(POLLIN)),
                (output.fileDescriptor, 0), // POLLERR / POLLHUP: the reader went away
                (signals, Int16(POLLIN)),
            ]
            let lookupIndex = lookup.map { _ in descriptors.count }
            if let lookup { descriptors.append((lookup.readinessDescriptor, Int16(POLLIN))) }
            let checkIndex = check.map { _ in descriptors.count }
            if let check { descriptors.append((check.readinessDescriptor, Int16(POLLIN))) }
            let ready = try System.poll(descriptors, timeoutMilliseconds: timeout)
            statistics.wakeUps += 1
            now = System.monotonicMilliseconds()

            if ready[1] & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return .readerGone }
            if ready[2] & Int16(POLLIN) != 0, System.readSignal(signals) != nil {
                machine.stop(.interrupted)
                return .interrupted
            }
            if ready[0] & Int16(POLLIN | POLLERR) != 0 {
                let drain = try NetlinkDrain.drain(monitor)
                statistics.drains += 1
                statistics.datagrams += drain.datagrams
                statistics.messages += drain.messages
                if drain.overrun { statistics.overruns += 1 }
                if drain.sawChange {
                    schedule.requestRefresh()
                    if pacer.changeSeen(at: Self.now()) { try evaluateAndObserve(afterChange: true) }
                }
            }
            if let running = lookup, let index = lookupIndex, ready[index] & Int16(POLLIN) != 0,
                let answer = try running.wait(timeoutMilliseconds: 0)
            {
                lookup = nil
                outcome = answer
                now = System.monotonicMilliseconds()
                schedule.finished(at: now)
                try evaluateAndObserve(afterChange: false)
            }
            if let running = check, let index = checkIndex, ready[index] & Int16(POLLIN) != 0,
                let answer = try running.wait(timeoutMilliseconds: 0)
            {
                check = nil
                // A probe that cannot run (no ICMP permission) ends the watch with its error.
                let verdict = try answer.get()
                forward(connectivity?.checkFinished(verdict, at: Self.now()) ?? nil)
                now = System.monotonicMilliseconds()
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

extension WatchLoop {
    static func now() -> WatchInstant {
        WatchInstant(monotonic: System.monotonicMilliseconds(), wall: System.realtimeMilliseconds())
    }
}

extension WatchTarget {
    var isHost: Bool {
        if case .host = self { return true }
        return false
    }
}

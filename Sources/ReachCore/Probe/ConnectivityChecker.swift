import ReachSystem

/// The probes of one check, run in parallel, and the state they add up to.
public struct ConnectivityReport: Hashable, Sendable {
    public var state: ConnectivityState
    public var probes: [ProbeResult]

    public init(state: ConnectivityState, probes: [ProbeResult]) {
        self.state = state
        self.probes = probes
    }
}

public struct ConnectivityChecker: Sendable {
    public var specs: [ProbeSpec]
    /// Each probe's bound, from the start of the check.
    public var timeout: TimeSpan
    public var runner: ProbeRunner

    public init(specs: [ProbeSpec], timeout: TimeSpan, runner: ProbeRunner) {
        self.specs = specs
        self.timeout = timeout
        self.runner = runner
    }

    /// Whether an ICMP probe is among the specs: it needs ICMP permission.
    public var usesICMP: Bool {
        specs.contains { if case .icmp = $0 { true } else { false } }
    }

    /// Probes only when a route is usable: with none, the state is `none` and no packet leaves.
    /// `started` runs on the calling thread once every probe's thread has started (the command
    /// line drops its capabilities there), or at once when no probe runs.
    public func check(routeUsable: Bool, started: () throws -> Void = {}) throws -> ConnectivityReport {
        guard routeUsable else {
            try started()
            return ConnectivityReport(state: .none, probes: [])
        }
        let start = MonotonicInstant.now()
        let deadline = start + timeout
        let runner = self.runner
        let jobs = try specs.map { spec in
            try BackgroundJob { Result { try runner.run(spec, deadline: deadline) } }
        }
        try started()
        // Each probe keeps its own deadline; the margin only covers a probe stuck in a
        // call that cannot be interrupted (getaddrinfo), which then counts as timed out.
        let results = try zip(specs, jobs).map { spec, job in
            let waited = (deadline + .milliseconds(250)).remaining(from: .now())
            return try job.wait(timeout: waited)?.get()
                ?? ProbeResult(spec: spec, outcome: .failed, elapsed: MonotonicInstant.now() - start, detail: "timed out")
        }
        return ConnectivityReport(state: ConnectivityState.decide(routeUsable: true, results: results), probes: results)
    }
}

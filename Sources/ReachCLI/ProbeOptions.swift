import ReachCommandLine
import ReachCore
import ReachSystem

/// `--probe`, `--probe-timeout`, `--expect`: the connectivity check of `status` (and `watch`),
/// and the check they ask for.
struct ProbeOptions: Equatable {
    static let defaultTimeout = TimeSpan.seconds(5)

    var specs: [String] = []
    var probeTimeout = defaultTimeout
    var expect: String?

    /// The options, declared for a subcommand whose field `group` holds them.
    static func commandLine<Outer>(_ group: @escaping GroupField<Outer, ProbeOptions>) -> [OptionDeclaration<Outer>] {
        [.member(Option.probe, in: group), .member(Option.probeTimeout, in: group), .member(Option.expect, in: group)]
    }

    /// Each option's declaration, which the commands list and every message that names the
    /// option spells it from.
    enum Option {
        static let probe = OptionDeclaration<ProbeOptions>.values(
            long: "probe", .next, valueName: "spec",
            help: "Check connectivity: icmp:HOST, tcp:HOST:PORT or http://HOST[:PORT]/PATH (repeatable)."
        ) { $0.specs.append($1) }
        // Unconditional, as host's --timeout: `--probe-timeout -1` is a wrong value, not a missing one.
        static let probeTimeout = OptionDeclaration<ProbeOptions>.typed(
            long: "probe-timeout", .positiveDuration, valueName: "duration", default: defaultTimeout,
            help: "Bound on each probe: 5, 1.5s, 300ms."
        ) { $0.probeTimeout = $1 }
        static let expect = OptionDeclaration<ProbeOptions>.value(
            long: "expect", .next, valueName: "text", help: "Text the body of an HTTP 200 must contain to pass."
        ) { $0.expect = $1 }
    }

    /// Runs the probes. ICMP probes open their sockets as `reach ping` does (iputils
    /// ping_common.c): only CAP_NET_RAW kept, raised around socket(), all dropped after.
    /// Capabilities are per thread: each probe's thread inherits them and drops them itself
    /// (NetworkProbeRunner.dropsCapabilities), this one as soon as the probes' threads are started.
    func check(_ checker: ConnectivityChecker, routeUsable: Bool) throws -> ConnectivityReport {
        let usesICMP = checker.usesICMP
        guard usesICMP else { return try checker.check(routeUsable: routeUsable) }
        try Capabilities.limitToNetRaw()
        return try checker.check(routeUsable: routeUsable, started: { try Capabilities.dropAll() })
    }

    /// The checker for the `--probe` options, nil when none is given. `--expect` is checked
    /// either way (as `--probe-timeout` is, by its type): one that no http probe would look
    /// for is a usage error, not silently ignored.
    func makeChecker(family: AddressFamily?) throws -> ConnectivityChecker? {
        let parsed = try specs.map(ProbeSpecArgument.parse)
        if expect != nil, !parsed.contains(where: { if case .http = $0 { true } else { false } }) {
            throw UsageError("\(Option.expect.spelled) is for an http:// probe, and no \(Option.probe.spelled) names one")
        }
        guard !parsed.isEmpty else { return nil }
        return ConnectivityChecker(specs: parsed, timeout: probeTimeout,
                                   runner: prober(family: family))
    }

    private func prober(family: AddressFamily?) -> NetworkProbeRunner {
        var prober = NetworkProbeRunner(expectedText: expect, family: family)
        prober.broadcastOption = PingOptions.Option.broadcast.spelled
        prober.dropsCapabilities = true
        return prober
    }
}

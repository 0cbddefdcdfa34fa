import ReachCommandLine
import ReachCore
import ReachSystem

extension PingOptions {
    /// fping's defaults where iputils has none for a run over many targets: 10 ms between
    /// any two probes (fping -i), each target every second (fping -p).
    static let fanoutDefaultInterval = TimeSpan.milliseconds(10)
    static let fanoutDefaultPeriod = TimeSpan.seconds(1)
    /// --each-rtt keeps 8 bytes per probe per target: -c times the targets is bounded to
    /// keep at most 64 MiB.
    static let mostKeptRoundTrips = 8 * 1024 * 1024

    /// `reach ping A B C ...`: fping's model over one ICMP socket per family.
    func executeFanout(_ texts: [String]) throws -> ExitStatus {
        let session = PingSession(ipv4: ipv4, ipv6: ipv6, options: Self.sessionOptions)
        try checkFanoutOptions(session)
        let reportEvery = squiet
        let settings = try PingSettings(self)
        let configuration = try fanoutConfiguration(settings)
        if eachRTT, let count = configuration.count {
            let (kept, overflow) = count.multipliedReportingOverflow(by: texts.count)
            if overflow || kept > Self.mostKeptRoundTrips {
                throw UsageError(
                    "\(Option.eachRTT.spelled) keeps every probe's time: \(Option.count.spelled) times the targets at most "
                        + "\(Self.mostKeptRoundTrips)")
            }
        }
        let literals = try session.literals(texts)
        try session.limitPrivileges(interval: configuration.interval, rules: .fping)
        let renderer = FanoutPingRenderer(options: self, count: configuration.count)
        let run = try Self.resolve(texts, literals: literals, session: session, renderer: renderer)
        guard !run.addresses.isEmpty else { return renderer.end(nil, names: [], unresolved: run.unresolved) }
        let families = AddressFamily.allCases.filter { family in run.addresses.contains { $0.family == family } }
        for family in families { try settings.check(for: family) }
        let sockets = try settings.opening { try ICMPSocketGroup(families: families, options: settings.socketOptions) }
        try Capabilities.dropAll()
        InterruptSignal.install(writingTo: sockets.interruptionDescriptor)
        CurrentProcess.tightenTimerSlack()
        let engine = PingEngine(
            targets: run.addresses, identifiers: (sockets.identifier(for: .ipv4), sockets.identifier(for: .ipv6)),
            configuration: configuration)
        var loop = PingLoop(engine: engine, transport: sockets, clock: SystemClock())
        renderer.bind(names: run.names, addresses: run.addresses)
        let out = OutputChannel.standard
        let failure = session.run(&loop, reportEvery: reportEvery, report: renderer.report) { event, engine in
            renderer.handle(event, engine: engine)
            // `reach ping --loop A B | head -1`: once the reader is gone, end as on SIGINT, as
            // one target does, rather than ping on into a closed pipe.
            if out.readerGone { sockets.interrupt() }
        }
        if let failure { return Self.stopped(by: failure) }
        return renderer.end(loop.engine, names: run.names, unresolved: run.unresolved)
    }

    /// The options one host has and several do not, and fping's combinations; -4 with -6.
    private func checkFanoutOptions(_ session: PingSession) throws {
        if flood {
            let pacing = Option.interval.spelled + " and " + Option.period.spelled
            throw UsageError("\(Option.flood.spelled) is for one host; several are paced by \(pacing)")
        }
        if outstanding { throw UsageError("\(Option.outstanding.spelled) is for one host") }
        _ = try session.family()
        // fping: "specify only one of c, l"; -C keeps a count of times, -Q reports in its
        // count and loop modes only.
        if self.loop && count != nil { throw UsageError("\(Option.loop.spelled) and \(Option.count.spelled) cannot be combined") }
        if self.loop && eachRTT { throw UsageError("\(Option.eachRTT.spelled) needs \(Option.count.spelled), not \(Option.loop.spelled)") }
        if squiet != nil && count == nil && !self.loop {
            throw UsageError("\(Option.squiet.spelled) needs \(Option.count.spelled) or \(Option.loop.spelled)")
        }
        if json && (stats || squiet != nil) {
            throw UsageError(
                "\(Option.stats.spelled) and \(Option.squiet.spelled) are text; \(Option.json.spelled) has its summary and end events")
        }
    }

    /// The targets that resolved, in order, with the names they were given; each name that
    /// did not is said by the renderer and counted.
    private static func resolve(
        _ texts: [String], literals: [IPAddress?], session: PingSession, renderer: FanoutPingRenderer
    ) throws -> (names: [String], addresses: [IPAddress], unresolved: Int) {
        var run: (names: [String], addresses: [IPAddress], unresolved: Int) = ([], [], 0)
        for (text, resolution) in zip(texts, try session.resolve(texts, literals: literals)) {
            switch resolution {
            case .address(let address):
                run.names.append(text)
                run.addresses.append(address)
            case .unresolved(let why):
                renderer.unresolved(text, why: why)
                run.unresolved += 1
            }
        }
        return run
    }

    /// -c, -i, --period, -W, -w and -s as fping's model takes them (iputils' units: seconds,
    /// read by their declarations; -c, -w and -s as PingSettings read them).
    func fanoutConfiguration(_ settings: PingSettings) throws -> PingConfiguration {
        var configuration = PingConfiguration.fping()
        configuration.count = settings.configuration.count
        configuration.deadline = settings.configuration.deadline
        configuration.payloadSize = settings.configuration.payloadSize
        configuration.payloadPattern = settings.configuration.payloadPattern
        // fping -l: count mode without an end (its loop_flag schedules each next probe as -c does).
        if loop { configuration.count = Int.max }
        configuration.count = eachRTT ? (configuration.count ?? 1) : configuration.count
        configuration.recordsEachProbe = eachRTT
        configuration.interval = interval ?? Self.fanoutDefaultInterval
        configuration.period = period ?? Self.fanoutDefaultPeriod
        if let timeout {
            configuration.timeout = timeout
        } else if configuration.count != nil {
            configuration.timeout = PingConfiguration.countModeTimeout(period: configuration.period)
        }
        return configuration
    }
}

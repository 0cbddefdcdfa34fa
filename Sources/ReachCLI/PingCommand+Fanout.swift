import ReachCommandLine
import ReachCore
import ReachSystem

extension PingOptions {
    /// fping's defaults where iputils has none for a run over many targets: 10 ms between
    /// any two probes (fping -i), each target every second (fping -p).
    static let fanoutDefaultInterval: Int64 = 10_000_000
    static let fanoutDefaultPeriod: Int64 = 1_000_000_000
    /// --each-rtt keeps 8 bytes per probe per target: -c times the targets is bounded to
    /// keep at most 64 MiB.
    static let mostKeptRoundTrips = 8 * 1024 * 1024

    /// `reach ping A B C ...`: fping's model over one ICMP socket per family.
    func executeFanout(_ texts: [String]) throws -> ExitStatus {
        if flood { throw UsageError("-f is for one host; several are paced by -i and --period") }
        if outstanding { throw UsageError("-O is for one host") }
        if ipv4 && ipv6 { throw UsageError("-4 and -6 cannot be combined") }
        // fping: "specify only one of c, l"; -C keeps a count of times, -Q reports in its
        // count and loop modes only.
        if self.loop && count != nil { throw UsageError("--loop and -c cannot be combined") }
        if self.loop && eachRTT { throw UsageError("--each-rtt needs -c, not --loop") }
        if squiet != nil && count == nil && !self.loop { throw UsageError("--squiet needs -c or --loop") }
        if json && (stats || squiet != nil) { throw UsageError("--stats and --squiet are text; --json has its summary and end events") }
        let reportEvery = try squiet.map { try PingSettings.seconds($0, option: "--squiet", allowsZero: false) }
        let family: AddressFamily? = ipv4 ? .ipv4 : ipv6 ? .ipv6 : nil
        let settings = try PingSettings(self)
        let configuration = try fanoutConfiguration(settings)
        if eachRTT, let count = configuration.count {
            let (kept, overflow) = count.multipliedReportingOverflow(by: texts.count)
            if overflow || kept > Self.mostKeptRoundTrips {
                throw UsageError("--each-rtt keeps every probe's time: -c times the targets at most \(Self.mostKeptRoundTrips)")
            }
        }
        // Every target checked before anything is resolved or sent.
        var literals: [IPAddress?] = []
        literals.reserveCapacity(texts.count)
        for text in texts {
            if let literal = try? IPAddress.parse(text).resolvingZone() {
                try FamilyMismatch.check(literal, against: family, target: text)
                literals.append(literal)
            } else {
                if text.contains("%") { _ = try TargetArgument.address(text) }
                try TargetArgument.validateHostName(text)
                literals.append(nil)
            }
        }
        try Capabilities.limitToNetRaw()
        if !Capabilities.netRawPermitted && configuration.intervalNanoseconds < PingSettings.minimumUserInterval {
            throw PermissionError(
                "cannot use -i below 0.002 s: CAP_NET_RAW is not permitted (setcap cap_net_raw+p on the reach binary, or run as root)")
        }
        let renderer = FanoutPingRenderer(options: self, count: configuration.count)
        // Names resolved together (HostResolutionPool), bounded as one ping's lookup is.
        let names = zip(texts, literals).compactMap { $1 == nil ? $0 : nil }
        var outcomes = try SystemHostResolver().resolve(all: names, family: family, timeoutMilliseconds: 10_000)[...]
        var runNames: [String] = []
        var addresses: [IPAddress] = []
        var unresolved = 0
        for (text, literal) in zip(texts, literals) {
            let address: IPAddress
            if let literal {
                address = literal
            } else {
                switch outcomes.removeFirst() {
                case .resolved(let resolved):
                    try FamilyMismatch.check(resolved[0], against: family, target: text)
                    address = resolved[0]
                case .notResolved(let why):
                    unresolved += 1
                    renderer.unresolved(text, why: why)
                    continue
                case .failed(let error):
                    unresolved += 1
                    renderer.unresolved(text, why: error.description)
                    continue
                }
            }
            runNames.append(text)
            addresses.append(address)
        }
        guard !addresses.isEmpty else { return renderer.end(nil, names: [], unresolved: unresolved) }
        let families = AddressFamily.allCases.filter { family in addresses.contains { $0.family == family } }
        for family in families { try settings.check(for: family) }
        let sockets = try settings.opening { try ICMPSocketGroup(families: families, options: settings.socketOptions) }
        try Capabilities.dropAll()
        InterruptSignal.install(writingTo: sockets.interruptionDescriptor)
        CurrentProcess.tightenTimerSlack()
        let engine = FanoutPingEngine(
            targets: addresses, identifiers: (sockets.identifier(for: .ipv4), sockets.identifier(for: .ipv6)),
            configuration: configuration)
        var loop = FanoutPingLoop(engine: engine, transport: sockets, clock: SystemClock())
        renderer.bind(names: runNames, addresses: addresses)
        do {
            try loop.run(reportEvery: reportEvery, report: renderer.report, status: renderer.status) { event, engine in
                renderer.handle(event, engine: engine)
            }
        } catch {
            OutputChannel.standardError.write("reach: system failure: \(error)\n")
            return .systemFailure
        }
        return renderer.end(loop.engine, names: runNames, unresolved: unresolved)
    }

    /// -c, -i, --period, -W, -w and -s as fping's model takes them (iputils' units: seconds;
    /// -c, -w and -s as PingSettings read them).
    func fanoutConfiguration(_ settings: PingSettings) throws -> FanoutPingConfiguration {
        var configuration = FanoutPingConfiguration()
        configuration.count = settings.configuration.count
        configuration.deadlineNanoseconds = settings.configuration.deadlineNanoseconds
        configuration.payloadSize = settings.configuration.payloadSize
        configuration.payloadPattern = settings.configuration.payloadPattern
        // fping -l: count mode without an end (its loop_flag schedules each next probe as -c does).
        if loop { configuration.count = Int.max }
        configuration.count = eachRTT ? (configuration.count ?? 1) : configuration.count
        configuration.recordsEachProbe = eachRTT
        configuration.intervalNanoseconds = try interval.map { try PingSettings.seconds($0, option: "-i", allowsZero: true) }
            ?? Self.fanoutDefaultInterval
        configuration.periodNanoseconds = try period.map { try PingSettings.seconds($0, option: "--period", allowsZero: false) }
            ?? Self.fanoutDefaultPeriod
        if let text = timeout {
            configuration.timeoutNanoseconds = try PingSettings.seconds(text, option: "-W", allowsZero: false)
        } else if configuration.count != nil {
            configuration.timeoutNanoseconds = FanoutPingConfiguration.countModeTimeout(period: configuration.periodNanoseconds)
        }
        return configuration
    }
}

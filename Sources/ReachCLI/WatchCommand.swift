import ReachCommandLine
import ReachCore
import ReachSystem

/// `reach watch`: the state now, then one line per change, driven by kernel events; with
/// `--until`, a wait for a network (nm-online, systemd-networkd-wait-online). Its command line
/// as plain values, and the run.
struct WatchOptions: Equatable {
    static let defaultSettle = TimeSpan.zero
    static let defaultInterval = TimeSpan.seconds(60)

    var targets: [String] = []
    var targetList = TargetListOptions()
    var until: String?
    var timeout: TimeSpan?
    var settle = defaultSettle
    var count: Int?
    var interface: String?
    /// `-I`: the route looked up through this link (status's, host's and addr's -I).
    var outputInterface = InterfaceOptions()
    /// `--all`: every path out, each one's changes.
    var all = false
    var resolveInterval = defaultInterval
    var probeInterval = defaultInterval
    /// `--textfile`: node_exporter's textfile collector reads this file.
    var textfile: String?
    /// `--notify`: sd_notify(3)'s READY=1 and STATUS= for a Type=notify unit.
    var notify = false
    var debugStats = false
    var debugReceiveBuffer: Int32?
    var path = PathOptions()
    var probes = ProbeOptions()
    var output = OutputOptions()

    /// What help says the command is.
    static let about = CommandAbout(
        path: "reach watch",
        abstract: "Print the reachability state now, then a line each time it changes; or wait for a state.",
        discussion: """
            Without a target, watches what `status` evaluates; with a host name or an address, \
            what `host` or `addr` would. Exit status: 0 when \(Option.until.spelled) is met, \
            \(Option.count.spelled) is reached, the reader of the output goes away, or on SIGINT/SIGTERM; \
            1 when \(Option.timeout.spelled) passes (or a signal arrives) while \(Option.until.spelled) still waits.

            With \(ProbeOptions.Option.probe.spelled), connectivity (none, limited, portal, full) is part of the state: the \
            probes run again after every route or link change and every \(Option.probeInterval.spelled), and \
            \(Option.until.spelled) reachable then waits for full. A loss upstream is seen within the probe \
            interval plus the probe timeout; while the probes fail the interval doubles, up to \
            4 times, so a recovery can take up to 4 intervals plus the timeout to be seen.
            """)

    static let commandLine = CommandLineDeclaration<WatchOptions>(
        about: about,
        operand: .variadic(
            OperandName("targets", help: "Host names or IP addresses; none: the internet, as in `status`. Several: one stream.")
        ) { $0.targets.append($1) },
        options: [
            Option.until, Option.timeout, Option.settle, Option.count, Option.interface, Option.resolveInterval, Option.probeInterval,
            Option.textfile, Option.notify, Option.all, Option.debugStats, Option.debugReceiveBuffer,
        ]
            + TargetListOptions.commandLine { $1(&$0.targetList) } + PathOptions.commandLine { $1(&$0.path) }
            + InterfaceOptions.commandLine { $1(&$0.outputInterface) }
            + ProbeOptions.commandLine { $1(&$0.probes) } + OutputOptions.commandLine { $1(&$0.output) })

    /// Each option's declaration, which the command line lists and every message that names
    /// the option spells it from.
    enum Option {
        typealias Declared = OptionDeclaration<WatchOptions>
        static let until: Declared = .value(
            long: "until", .next, valueName: "reachable|unreachable", help: "Exit 0 as soon as this state holds."
        ) { $0.until = $1 }.offering(["reachable", "unreachable"])
        // The durations and the count parse unconditionally: `--timeout -1s` is a wrong value, not a missing one.
        static let timeout: Declared = .typed(
            long: "timeout", .positiveDuration, valueName: "duration",
            help: "End after this long: 30, 1.5s, 500ms, 2m (exit 1 if \(until.spelled) still waits)."
        ) { $0.timeout = $1 }
        static let settle: Declared = .typed(
            long: "settle", .duration, valueName: "duration", default: defaultSettle,
            help: "Report a new state only after it has held this long."
        ) { $0.settle = $1 }
        static let count: Declared = .integer(
            long: "count", .unconditional, valueName: "n", help: "Exit after this many changes (the first line does not count)."
        ) { $0.count = $1 }
        static let interface: Declared = .value(
            long: "interface", .next, valueName: "interface", help: "Count a path as reachable only through this link."
        ) { $0.interface = $1 }
        static let resolveInterval: Declared = .typed(
            long: "resolve-interval", .positiveDuration, valueName: "duration", default: defaultInterval,
            help: "Look a host name up again this often, and after link or route changes."
        ) { $0.resolveInterval = $1 }
        static let probeInterval: Declared = .typed(
            long: "probe-interval", .positiveDuration, valueName: "duration", default: defaultInterval,
            help: "With \(ProbeOptions.Option.probe.spelled): check again this often (up to 4 times as long while failing)."
        ) { $0.probeInterval = $1 }
        static let textfile: Declared = .value(
            long: "textfile", .next, valueName: "path",
            help: "Also write the internet's state as Prometheus metrics to this file, replaced at start and on each change."
        ) { $0.textfile = $1 }
        static let notify: Declared = .flag(
            long: "notify",
            help: "Tell systemd over $NOTIFY_SOCKET: STATUS= at each state, READY=1 once \(until.spelled) holds (without it: at the first)."
        ) { $0.notify = true }
        static let all: Declared = .flag(
            long: "all",
            help: "Every path out, as status \(StatusOptions.Option.all.spelled) lists them: a line when one changes place, verdict or use."
        ) { $0.all = true }
        // Hidden, for the tests: statistics at the end, and a tiny netlink receive buffer
        // that makes the kernel drop messages (the overrun test).
        static let debugStats: Declared = .flag(long: "debug-stats", help: nil) { $0.debugStats = true }
        static let debugReceiveBuffer: Declared = .integer(long: "debug-receive-buffer", .next, valueName: "bytes", help: nil) {
            $0.debugReceiveBuffer = $1
        }
    }

    /// What the command line asks, checked: the targets, the probes and the loop's configuration.
    private struct Plan {
        var targets: [WatchTarget]
        var checker: ConnectivityChecker?
        var probeEvery: TimeSpan
        var condition: WaitCondition?
        var configuration: WatchConfiguration
        var resolveInterval: TimeSpan
        /// `-I`'s link, checked (it may not exist yet while `--until` waits).
        var outputInterface: String?
    }

    private func plan() throws -> Plan {
        // No target: the internet; one: as today; several (or a list): one stream for all.
        let texts = targets.isEmpty && targetList.files.isEmpty ? nil : try TargetList.gather(targets, from: targetList.files)
        let watchTargets = try texts.map { try $0.map(parsedTarget) } ?? [parsedTarget(nil)]
        if watchTargets.count > 1 && !probes.specs.isEmpty {
            throw UsageError("\(ProbeOptions.Option.probe.spelled) watches one target; several targets are watched by their routes")
        }
        let checker = try probes.makeChecker(family: path.singleFamily)
        let condition = try until.map(Self.condition)
        if let count, count < 1 { throw UsageError("\(Option.count.spelled) must be at least 1: '\(count)'") }
        if let interface { try Self.validateInterface(interface, waitingUntil: condition != nil) }
        let outputInterfaceName = try outputInterface.checkedName(waiting: condition != nil)
        if all && texts != nil { throw UsageError("\(Option.all.spelled) watches the internet's paths: give no target") }
        let configuration = WatchConfiguration(
            settle: settle, until: condition, timeout: timeout, count: count)
        if let textfile {
            if texts != nil { throw UsageError("\(Option.textfile.spelled) writes the internet's state: give no target") }
            if textfile.isEmpty || textfile.hasSuffix("/") {
                throw UsageError("\(Option.textfile.spelled): '\(PrintableText.escaped(textfile))' is not a file path")
            }
        }
        return Plan(
            targets: watchTargets, checker: checker, probeEvery: probeInterval, condition: condition, configuration: configuration,
            resolveInterval: resolveInterval, outputInterface: outputInterfaceName)
    }

    func execute() throws -> ExitStatus {
        let plan = try plan()
        let checker = plan.checker
        let condition = plan.condition
        var notification = try makeNotification()

        // Standard output's reader going away (`reach watch | head -1`) ends the watch.
        // ModemManager's and NetworkManager's changes come as signals on the system bus.
        let linkFacts = BusLinkFacts.systemBus()
        let events = try KernelWatchEvents(
            readerDescriptor: OutputChannel.standard.fileDescriptor,
            receiveBufferSize: debugReceiveBuffer ?? KernelWatchEvents.defaultReceiveBufferSize, services: linkFacts)
        linkFacts.subscribe()
        var evaluator = try path.makeEvaluator(linkFacts: linkFacts)
        evaluator.paths.interfaceName = plan.outputInterface
        evaluator.listsAllPaths = all
        let loop = WatchLoop(
            targets: plan.targets, any: targetList.any, configuration: plan.configuration, resolveInterval: plan.resolveInterval,
            interface: interface, probing: checker.map { WatchProbing(checker: $0, interval: plan.probeEvery) },
            evaluator: evaluator, events: events)
        // ICMP probes open a socket per check: CAP_NET_RAW stays permitted (never
        // effective but around socket()) for as long as the watch runs; the rest goes now.
        if checker?.usesICMP == true { try Capabilities.limitToNetRaw() }
        let renderer = WatchRenderer(report: output.renderer)
        // --textfile: the file is replaced whole (written beside it, fsync'd, renamed over it)
        // with each event the watch reports, and at no other time.
        var metrics = InternetMetrics(probing: checker != nil)
        var textfileFailure: Error?
        let end = try loop.run { event in
            if let textfile {
                metrics.observe(event.current, at: event.time)
                do {
                    try TextFile.replace(textfile, with: ExpositionText.render(metrics.samples))
                } catch {
                    textfileFailure = error
                    return false
                }
            }
            if !output.quiet {
                OutputChannel.standard.write(output.json ? renderer.json(event).serialized() + "\n" : renderer.text(event))
            }
            notification?.reported(event, waitingUntil: condition != nil)
            return !OutputChannel.standard.readerGone
        }
        notification?.ended(end)
        if let textfileFailure { throw textfileFailure }
        if debugStats {
            let stats = loop.statistics
            OutputChannel.standardError.write("""
                reach: watch statistics: wake-ups \(stats.wakeUps), drains \(stats.drains), \
                datagrams \(stats.datagrams), messages \(stats.messages), overruns \(stats.overruns), \
                evaluations \(stats.evaluations), lookups \(stats.lookups), checks \(stats.checks)

                """)
        }
        return .of(end, waitingUntil: condition != nil)
    }

    private func parsedTarget(_ target: String?) throws -> WatchTarget {
        guard let target else { return .internet(families: path.families) }
        // Anything with ':' or '%' can only be an address literal: say what is wrong with it.
        // Otherwise a text that does not parse as an address is a host name, checked as one below.
        if target.contains(":") || target.contains("%") || (try? IPAddress.parse(target)) != nil {
            let address = try TargetArgument.address(target)
            try path.check(address, written: target)  // as `reach addr`
            return .address(address)
        }
        try TargetArgument.validateHostName(target)
        return .host(target, family: try path.family(for: "a host"))
    }

    private static func condition(_ text: String) throws -> WaitCondition {
        guard let condition = WaitCondition(rawValue: text) else {
            throw UsageError("\(Option.until.spelled): '\(PrintableText.escaped(text))' is neither reachable nor unreachable")
        }
        return condition
    }

    /// A Linux interface name: 1 to 15 bytes, no '/', no whitespace (IFNAMSIZ, dev_valid_name).
    /// It must exist, as for `ping -I` and `addr --oif`, unless `--until` waits: then the link
    /// may come later (a VPN's or a modem's), as systemd-networkd-wait-online --interface waits.
    static func validateInterface(_ name: String, waitingUntil: Bool) throws {
        if !InterfaceOptions.isValidName(name) {
            throw UsageError("\(Option.interface.spelled): invalid interface name '\(PrintableText.escaped(name))'")
        }
        if !waitingUntil && NetworkInterface.index(named: name) == nil {
            let shown = PrintableText.escaped(name)
            throw UsageError("\(Option.interface.spelled): unknown interface '\(shown)' (\(Option.until.spelled) waits for one to appear)")
        }
    }
}

import ArgumentParser
import ReachCore
import ReachSystem

/// `reach`: the root of the command tree. Bare `reach` runs `status`.
public struct ReachCommand: ParsableCommand {
    public static let version = ReachVersion.current

    public static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "Is the network up, can I get there, and how fast does it answer.",
        discussion: """
            Exit status: 0 reachable, 1 not reachable, 2 name not resolved, \
            64 usage error, 71 system failure, 77 not permitted.
            """,
        version: "reach \(version)",
        subcommands: [StatusCommand.self, HostCommand.self, AddrCommand.self, WatchCommand.self, PingCommand.self],
        defaultSubcommand: StatusCommand.self
    )

    public init() {}
}

/// How results are printed; shared by every evaluating subcommand. ArgumentParser's copy of
/// OutputOptions.commandLine (CommandLineDeclarationTests hold it to the declaration).
struct OutputArguments: ParsableArguments {
    @Flag(name: .long, help: "Print JSON: one object on one line; watch prints one per event (schema in reach(1)).")
    var json = false

    @Flag(name: .long, help: "Add the flag string (WR ctiCDld) to text output.")
    var flags = false

    @Flag(name: .shortAndLong, help: "Print nothing; the exit status tells.")
    var quiet = false

    var options: OutputOptions { OutputOptions(json: json, flags: flags, quiet: quiet) }
}

/// --json, --flags, -q as plain values, whichever reader read them.
struct OutputOptions: Equatable {
    var json = false
    var flags = false
    var quiet = false

    /// The options, declared for a subcommand whose field `group` holds them.
    static func commandLine<Outer>(_ group: @escaping GroupField<Outer, OutputOptions>) -> [OptionDeclaration<Outer>] {
        [
            .member(.flag(long: "json") { $0.json = true }, in: group),
            .member(.flag(long: "flags") { $0.flags = true }, in: group),
            .member(.flag("q", long: "quiet") { $0.quiet = true }, in: group),
        ]
    }

    var renderer: ReportRenderer { ReportRenderer(showsFlags: flags) }

    /// Prints a report as asked and returns the exit status it stands for.
    func emit(_ report: ReachabilityReport, command: String) -> ExitStatus {
        if !quiet {
            let text = json ? renderer.json(report, command: command).serialized() + "\n" : renderer.text(report)
            OutputChannel.standard.write(text)
        }
        return .of(report)
    }
}

/// -4 / -6, --no-cellular and --no-expensive: ArgumentParser's copy of PathOptions.commandLine.
struct PathArguments: ParsableArguments {
    @Flag(name: .customShort("4"), help: "IPv4 only.")
    var ipv4 = false

    @Flag(name: .customShort("6"), help: "IPv6 only.")
    var ipv6 = false

    @Flag(name: .long, help: "Count a path over a cellular link as not reachable.")
    var noCellular = false

    @Flag(name: .long, help: "Count an expensive path (cellular, or metered in NetworkManager) as not reachable.")
    var noExpensive = false

    var options: PathOptions { PathOptions(ipv4: ipv4, ipv6: ipv6, noCellular: noCellular, noExpensive: noExpensive) }
}

/// -4 / -6, --no-cellular and --no-expensive as plain values.
struct PathOptions: Equatable {
    var ipv4 = false
    var ipv6 = false
    var noCellular = false
    var noExpensive = false

    /// The options, declared for a subcommand whose field `group` holds them.
    static func commandLine<Outer>(_ group: @escaping GroupField<Outer, PathOptions>) -> [OptionDeclaration<Outer>] {
        [
            .member(.flag("4") { $0.ipv4 = true }, in: group),
            .member(.flag("6") { $0.ipv6 = true }, in: group),
            .member(.flag(long: "no-cellular") { $0.noCellular = true }, in: group),
            .member(.flag(long: "no-expensive") { $0.noExpensive = true }, in: group),
        ]
    }

    var families: Set<AddressFamily> {
        var families: Set<AddressFamily> = []
        if ipv4 { families.insert(.ipv4) }
        if ipv6 { families.insert(.ipv6) }
        return families
    }

    /// The single family a lookup is restricted to; nil when both or neither were named.
    var singleFamily: AddressFamily? { families.count == 1 ? families.first : nil }

    /// An address literal has one family: -4 with -6 is refused for it, and -4 or -6 must
    /// name its family.
    func check(_ address: IPAddress, written text: String) throws {
        try FamilyMismatch.check(address, against: try family(for: "an address"), target: text)
    }

    /// The family one target is looked up in, nil for either: -4 with -6 is refused for a
    /// single target (`status` alone takes both, to require both).
    func family(for target: String) throws -> AddressFamily? {
        if families.count > 1 { throw UsageError("-4 and -6 cannot be combined for \(target)") }
        return singleFamily
    }

    /// `linkFacts`: ModemManager and NetworkManager on the system bus, asked only when a
    /// path leaves through a link other than loopback.
    func makeEvaluator(linkFacts: LinkFactsSource? = BusLinkFacts.systemBus()) throws -> ReachabilityEvaluator {
        try .live(allowsCellular: !noCellular, allowsExpensive: !noExpensive, linkFacts: linkFacts)
    }
}

// The evaluating subcommands. Each ParsableCommand is ArgumentParser's copy of its options'
// declaration (`commandLine`; CommandLineDeclarationTests hold the two together) and hands
// its values to `execute()` on the options, which ReachArguments reaches without
// ArgumentParser for plain command lines.

struct StatusCommand: ParsableCommand, ReachRunnable {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Is the internet reachable: the route the kernel would pick, per address family.",
        discussion: "With neither -4 nor -6, reachable when either family is; with both, when both are."
    )

    @OptionGroup var path: PathArguments

    @Option(name: .customLong("reference"), help: ArgumentHelp(
        "Look this address up for its family instead of 8.8.8.8 or 2001:4860:4860::8888 (one per family).",
        valueName: "address"))
    var references: [String] = []

    @OptionGroup var probes: ProbeArguments
    @OptionGroup var output: OutputArguments

    var options: StatusOptions {
        StatusOptions(path: path.options, references: references, probes: probes.options, output: output.options)
    }

    func execute() throws -> ExitStatus {
        try options.execute()
    }
}

/// `reach status`'s command line as plain values, and the run.
struct StatusOptions: Equatable {
    var path = PathOptions()
    var references: [String] = []
    var probes = ProbeOptions()
    var output = OutputOptions()

    static let commandLine = CommandLineDeclaration<StatusOptions>(
        operand: .none,
        options: PathOptions.commandLine { $1(&$0.path) } + [.values(long: "reference", .next) { $0.references.append($1) }]
            + ProbeOptions.commandLine { $1(&$0.probes) } + OutputOptions.commandLine { $1(&$0.output) })

    /// The reference addresses, one per family at most, each of a family that is evaluated.
    func referenceAddresses() throws -> [IPAddress] {
        var addresses: [IPAddress] = []
        for text in references {
            let address = try TargetArgument.address(text)
            if addresses.contains(where: { $0.family == address.family }) {
                let shown = PrintableText.escaped(text)
                throw UsageError("--reference: one address per family, and '\(shown)' is the second \(address.family.label) one")
            }
            if !path.families.isEmpty && !path.families.contains(address.family) {
                let evaluated = path.singleFamily?.label ?? ""
                throw UsageError("--reference \(address) is \(address.family.label), and only \(evaluated) is evaluated")
            }
            addresses.append(address)
        }
        return addresses
    }

    func execute() throws -> ExitStatus {
        // Bad probe specs are usage errors before anything is looked up or sent.
        let checker = try probes.makeChecker(family: path.singleFamily)
        let references = try referenceAddresses()
        var evaluator = try path.makeEvaluator()
        evaluator.references = references
        OutputChannel.standard.gatherBlocksUnlessTerminal()
        var report = try evaluator.evaluateInternet(families: path.families)
        if let checker {
            report.attach(try probes.check(checker, routeUsable: report.isReachable))
        }
        return output.emit(report, command: "status")
    }
}

struct AddrCommand: ParsableCommand, ReachRunnable {
    static let configuration = CommandConfiguration(
        commandName: "addr",
        abstract: "Can these IP addresses be reached: the kernel's route lookup decides.",
        discussion: """
            Several addresses: a line (or, with --json, a result) each, in the order given. \
            Exit status: 0 all reachable (--any: at least one), 1 otherwise.
            """
    )

    @Argument(help: "IPv4 or IPv6 literals; IPv6 may carry %zone.")
    var addresses: [String] = []

    @OptionGroup var targets: TargetListArguments
    @OptionGroup var path: PathArguments
    @OptionGroup var selectors: RouteSelectorArguments
    @OptionGroup var output: OutputArguments

    var options: AddrOptions {
        AddrOptions(
            addresses: addresses, targets: targets.options, path: path.options, selectors: selectors.options, output: output.options)
    }

    func execute() throws -> ExitStatus {
        try options.execute()
    }
}

/// `reach addr`'s command line as plain values, and the run.
struct AddrOptions: Equatable {
    var addresses: [String] = []
    var targets = TargetListOptions()
    var path = PathOptions()
    var selectors = RouteSelectorOptions()
    var output = OutputOptions()

    static let commandLine = CommandLineDeclaration<AddrOptions>(
        operand: .variadic { $0.addresses.append($1) },
        options: TargetListOptions.commandLine { $1(&$0.targets) } + PathOptions.commandLine { $1(&$0.path) }
            + RouteSelectorOptions.commandLine { $1(&$0.selectors) } + OutputOptions.commandLine { $1(&$0.output) })

    func execute() throws -> ExitStatus {
        let collected = try TargetList.gather(addresses, from: targets.file, limit: .stateless)
        let texts = collected.texts
        let chosen = try selectors.selectors()
        // Every address checked before the first is looked up (a fault in the file names its
        // line); parsed again part by part below, so a long list is never held as addresses
        // and reports at once.
        _ = try collected.map { _ = try address($0, selectors: chosen) }
        var evaluator = try path.makeEvaluator()
        evaluator.paths.selectors = chosen
        OutputChannel.standard.gatherBlocksUnlessTerminal()
        if texts.count == 1 {
            return output.emit(try evaluator.evaluate(address: try address(texts[0], selectors: chosen)), command: "addr")
        }
        evaluator = evaluator.sharingLinks()
        var stream = ReportStream(output: output, command: "addr", any: targets.any)
        var start = 0
        while start < texts.count {
            let part = texts[start..<min(start + ReportStream.partSize, texts.count)]
            stream.write(try evaluator.evaluate(addresses: try part.map { try address($0, selectors: chosen) }))
            start = part.endIndex
        }
        return stream.finish()
    }

    private func address(_ text: String, selectors: RouteSelectors) throws -> IPAddress {
        let target = try TargetArgument.address(text)
        try path.check(target, written: text)
        try RouteSelectorOptions.check(target, against: selectors, written: text)
        return target
    }
}

struct HostCommand: ParsableCommand, ReachRunnable {
    static let configuration = CommandConfiguration(
        commandName: "host",
        abstract: "Can these hosts be reached: every address getaddrinfo gives, evaluated.",
        discussion: """
            Several names are resolved together, each within --timeout; a line (or, with --json, \
            a result) each, in the order given. Exit status: 0 all reachable (--any: at least one), \
            else 2 when a name did not resolve, else 1.
            """
    )

    @Argument(help: "Host names (or anything getaddrinfo accepts).")
    var names: [String] = []

    // Unconditional: `--timeout -1` is a wrong value, not a missing one.
    @Option(name: .long, parsing: .unconditional,
            help: ArgumentHelp("Bound on name resolution: 5, 1.5s, 300ms, 1m.", valueName: "duration"))
    var timeout: String = HostOptions.defaultTimeout

    @OptionGroup var targets: TargetListArguments
    @OptionGroup var path: PathArguments
    @OptionGroup var output: OutputArguments

    var options: HostOptions {
        HostOptions(names: names, timeout: timeout, targets: targets.options, path: path.options, output: output.options)
    }

    func execute() throws -> ExitStatus {
        try options.execute()
    }
}

/// `reach host`'s command line as plain values, and the run.
struct HostOptions: Equatable {
    static let defaultTimeout = "5s"

    var names: [String] = []
    var timeout = defaultTimeout
    var targets = TargetListOptions()
    var path = PathOptions()
    var output = OutputOptions()

    static let commandLine = CommandLineDeclaration<HostOptions>(
        operand: .variadic { $0.names.append($1) },
        // Unconditional: `--timeout -1` is a wrong value, not a missing one.
        options: [.value(long: "timeout", .unconditional) { $0.timeout = $1 }]
            + TargetListOptions.commandLine { $1(&$0.targets) } + PathOptions.commandLine { $1(&$0.path) }
            + OutputOptions.commandLine { $1(&$0.output) })

    func execute() throws -> ExitStatus {
        let collected = try TargetList.gather(names, from: targets.file, limit: .stateless)
        _ = try collected.map(TargetArgument.validateHostName)
        let hosts = collected.texts
        let limit = try DurationArgument.positive(timeout, option: "--timeout")
        let family = try path.family(for: "a host")
        var evaluator = try path.makeEvaluator()
        OutputChannel.standard.gatherBlocksUnlessTerminal()
        if hosts.count == 1 {
            let report = try evaluator.evaluate(host: hosts[0], family: family, timeoutMilliseconds: limit.pollTimeout)
            return output.emit(report, command: "host")
        }
        // The names resolved a part at a time, each part's together.
        evaluator = evaluator.sharingLinks()
        var stream = ReportStream(output: output, command: "host", any: targets.any)
        var start = 0
        while start < hosts.count {
            let part = Array(hosts[start..<min(start + ReportStream.partSize, hosts.count)])
            stream.write(try evaluator.evaluate(hosts: part, family: family, timeoutMilliseconds: limit.pollTimeout))
            start += part.count
        }
        return stream.finish()
    }
}

/// --targets-from and --any: ArgumentParser's copy of TargetListOptions.commandLine.
struct TargetListArguments: ParsableArguments {
    @Option(
        name: .customLong("targets-from"),
        help: ArgumentHelp("Read targets from FILE, one a line ('-': standard input).", valueName: "file"))
    var file: String?

    @Flag(name: .long, help: "With several targets: succeed when any one is reachable, not only when all are.")
    var any = false

    var options: TargetListOptions { TargetListOptions(file: file, any: any) }
}

/// --targets-from and --any as plain values.
struct TargetListOptions: Equatable {
    var file: String?
    var any = false

    /// The options, declared for a subcommand whose field `group` holds them.
    static func commandLine<Outer>(_ group: @escaping GroupField<Outer, TargetListOptions>) -> [OptionDeclaration<Outer>] {
        [
            .member(.value(long: "targets-from", .next) { $0.file = $1 }, in: group),
            .member(.flag(long: "any") { $0.any = true }, in: group),
        ]
    }
}

/// `reach ping`'s command line read the way iputils reads its own (getopt: `-c 5`, `-c5`,
/// grouped flags such as `-qn`, options before or after the host), without ArgumentParser.
///
/// Why: ArgumentParser reflects the whole command tree before it parses anything, about
/// 12 M instructions (4 ms) per start, more than iputils ping takes to start and ping once;
/// `reach ping -c 1` in a script loop, or a 10,000-echo flood, paid it every time. This
/// reader takes only the plain forms. Anything else (help, unknown or repeated options,
/// a missing value, `--`, a second operand) returns nil and goes to ArgumentParser, which
/// says what is wrong; the values themselves are checked by PingSettings either way.
/// PingArgumentsTests and ReachArgumentsTests hold the two to the same result.
enum PingArguments {
    /// The options `words` (what follows `ping`) give, nil when ArgumentParser should read them.
    static func options(_ words: ArraySlice<String>) -> PingOptions? {
        PingOptions.commandLine.read(words, into: PingOptions())
    }

    /// `-qc1` as `-q -c1` (CommandLineDeclaration.splittingFlagGroups), for both readers.
    static func splittingFlagGroups(_ words: ArraySlice<String>) -> [String] {
        PingOptions.commandLine.splittingFlagGroups(words)
    }
}

extension PingOptions {
    /// `reach ping`'s options, each once: the fast reader reads them from here, and
    /// CommandLineDeclarationTests hold PingCommand's ArgumentParser properties to the same letters,
    /// arity, value parsing and fields. The letters are iputils ping's (ping(8)).
    static let commandLine = CommandLineDeclaration<PingOptions>(
        operand: .variadic { $0.hosts.append($1) },
        options: [
            // The numeric values parse unconditionally: `-c -1` is a wrong value, not a missing one.
            .value("c", .unconditional) { $0.count = $1 },
            .value("i", .unconditional) { $0.interval = $1 },
            .value("W", .unconditional) { $0.timeout = $1 },
            .value("w", .unconditional) { $0.deadline = $1 },
            .value("s", .unconditional) { $0.size = $1 },
            .value("t", .unconditional) { $0.ttl = $1 },
            .value("I", .next) { $0.interface = $1 },
            .value("p", .next) { $0.pattern = $1 },
            .value("M", .next) { $0.mtuDiscovery = $1 },
            .flag("4") { $0.ipv4 = true },
            .flag("6") { $0.ipv6 = true },
            .flag("q") { $0.quiet = true },
            .flag("n") { $0.numeric = true },
            .flag("D") { $0.timestamps = true },
            .flag("O") { $0.outstanding = true },
            .flag("f") { $0.flood = true },
            .flag(long: "json") { $0.json = true },
            // Several targets: fping's options where iputils has none, by long names.
            .value(long: "period", .unconditional) { $0.period = $1 },
            .flag(long: "alive") { $0.alive = true },
            .flag(long: "unreachable") { $0.unreachable = true },
            .flag(long: "each-rtt") { $0.eachRTT = true },
            .value(long: "targets-from", .next) { $0.targetsFrom = $1 },
            .value(long: "generate", .next) { $0.generate = $1 },
            .flag(long: "elapsed") { $0.elapsed = true },
            .flag(long: "stats") { $0.stats = true },
            .flag(long: "loop") { $0.loop = true },
            .value(long: "squiet", .unconditional) { $0.squiet = $1 },
        ])
}

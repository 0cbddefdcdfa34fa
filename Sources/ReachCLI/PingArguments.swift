/// `reach ping`'s command line read the way iputils reads its own (getopt: `-c 5`, `-c5`,
/// grouped flags such as `-qn`, options before or after the host), without ArgumentParser.
///
/// Why: ArgumentParser reflects the whole command tree before it parses anything, about
/// 12 M instructions (4 ms) per start, more than iputils ping takes to start and ping once;
/// `reach ping -c 1` in a script loop, or a 10,000-echo flood, paid it every time. This
/// reader takes only the plain forms. Anything else (help, unknown or repeated options,
/// a missing value, `--`, a second operand) returns nil and goes to ArgumentParser, which
/// says what is wrong; the values themselves are checked by PingSettings either way.
/// PingArgumentsTests hold the two to the same result.
enum PingArguments {
    /// The options `words` (what follows `ping`) give, nil when ArgumentParser should read them.
    static func options(_ words: ArraySlice<String>) -> PingOptions? {
        PingOptions.commandLine.read(words, into: PingOptions(host: ""))
    }

    /// `-qc1` as `-q -c1` (CommandLineDeclaration.splittingFlagGroups), for both readers.
    static func splittingFlagGroups(_ words: ArraySlice<String>) -> [String] {
        PingOptions.commandLine.splittingFlagGroups(words)
    }
}

extension PingOptions {
    /// `reach ping`'s options, each once: the fast reader reads them from here, and
    /// PingDeclarationTests hold PingCommand's ArgumentParser properties to the same letters,
    /// arity, value parsing and fields. The letters are iputils ping's (ping(8)).
    static let commandLine = CommandLineDeclaration<PingOptions>(
        operand: { $1(&$0.host) },
        options: [
            // The numeric values parse unconditionally: `-c -1` is a wrong value, not a missing one.
            .value("c", .unconditional) { $1(&$0.count) },
            .value("i", .unconditional) { $1(&$0.interval) },
            .value("W", .unconditional) { $1(&$0.timeout) },
            .value("w", .unconditional) { $1(&$0.deadline) },
            .value("s", .unconditional) { $1(&$0.size) },
            .value("t", .unconditional) { $1(&$0.ttl) },
            .value("I", .next) { $1(&$0.interface) },
            .flag("4") { $1(&$0.ipv4) },
            .flag("6") { $1(&$0.ipv6) },
            .flag("q") { $1(&$0.quiet) },
            .flag("n") { $1(&$0.numeric) },
            .flag("D") { $1(&$0.timestamps) },
            .flag("O") { $1(&$0.outstanding) },
            .flag("f") { $1(&$0.flood) },
            .flag(long: "json") { $1(&$0.json) },
        ])
}

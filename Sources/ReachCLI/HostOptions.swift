import ReachCommandLine
import ReachCore
import ReachSystem

/// `reach host`: can these hosts be reached. Its command line as plain values, and the run.
struct HostOptions: Equatable {
    static let defaultTimeout = TimeSpan.seconds(5)

    var names: [String] = []
    var timeout = defaultTimeout
    var targets = TargetListOptions()
    var path = PathOptions()
    var output = OutputOptions()

    /// What help says the command is.
    static let about = CommandAbout(
        path: "reach host",
        abstract: "Can these hosts be reached: every address getaddrinfo gives, evaluated.",
        discussion: """
            Several names are resolved together, each within \(Option.timeout.spelled); \
            a line (or, with \(OutputOptions.Option.json.spelled), a result) each, in the order given. \
            Exit status: 0 all reachable (\(TargetListOptions.Option.any.spelled): at least one), \
            else 2 when a name did not resolve, else 1.
            """)

    static let commandLine = CommandLineDeclaration<HostOptions>(
        about: about,
        operand: .variadic(OperandName("names", help: "Host names (or anything getaddrinfo accepts).")) { $0.names.append($1) },
        options: [Option.timeout]
            + TargetListOptions.commandLine { $1(&$0.targets) } + PathOptions.commandLine { $1(&$0.path) }
            + OutputOptions.commandLine { $1(&$0.output) })

    /// Each option's declaration, which the command line lists and every message that names
    /// the option spells it from.
    enum Option {
        // Unconditional: `--timeout -1` is a wrong value, not a missing one.
        static let timeout = OptionDeclaration<HostOptions>.typed(
            long: "timeout", .positiveDuration, valueName: "duration", default: defaultTimeout,
            help: "Bound on name resolution: 5, 1.5s, 300ms, 1m."
        ) { $0.timeout = $1 }
    }

    func execute() throws -> ExitStatus {
        let collected = try TargetList.gather(names, from: targets.files, limit: .stateless)
        _ = try collected.map(TargetArgument.validateHostName)
        let hosts = collected.texts
        let limit = timeout
        let family = try path.family(for: "a host")
        var evaluator = try path.makeEvaluator()
        OutputChannel.standard.gatherBlocksUnlessTerminal()
        if hosts.count == 1 {
            let report = try evaluator.evaluate(host: hosts[0], family: family, timeout: limit)
            return output.emit(report, command: "host")
        }
        // The names resolved a part at a time, each part's together.
        evaluator = evaluator.sharingLinks()
        var stream = ReportStream(output: output, command: "host", any: targets.any)
        var start = 0
        while start < hosts.count {
            let part = Array(hosts[start..<min(start + ReportStream.partSize, hosts.count)])
            stream.write(try evaluator.evaluate(hosts: part, family: family, timeout: limit))
            start += part.count
        }
        return stream.finish()
    }
}

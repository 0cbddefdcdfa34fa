import ReachCommandLine
import ReachCore
import ReachSystem

/// `reach host`: can these hosts be reached. Its command line as plain values, and the run.
struct HostOptions: Equatable {
    static let defaultTimeout = TimeSpan.seconds(5)

    var names: [String] = []
    var timeout = defaultTimeout
    /// `--connect PORT`: race TCP connections to the name's addresses (Happy Eyeballs).
    var connectPort: Int?
    var targets = TargetListOptions()
    var path = PathOptions()
    var interface = InterfaceOptions()
    var output = OutputOptions()

    /// What help says the command is.
    static let about = CommandAbout(
        path: "reach host",
        abstract: "Can these hosts be reached: every address getaddrinfo gives, evaluated.",
        discussion: """
            Several names are resolved together, each within \(Option.timeout.spelled); \
            a line (or, with \(OutputOptions.Option.json.spelled), a result) each, in the order given. \
            A name's addresses come in getaddrinfo's order (RFC 6724): a client tries the first first. \
            Exit status: 0 all reachable (\(TargetListOptions.Option.any.spelled): at least one), \
            else 2 when a name did not resolve, else 1.
            """)

    static let commandLine = CommandLineDeclaration<HostOptions>(
        about: about,
        operand: .variadic(OperandName("names", help: "Host names (or anything getaddrinfo accepts).")) { $0.names.append($1) },
        options: [Option.timeout, Option.connect]
            + TargetListOptions.commandLine { $1(&$0.targets) } + PathOptions.commandLine { $1(&$0.path) }
            + InterfaceOptions.commandLine { $1(&$0.interface) } + OutputOptions.commandLine { $1(&$0.output) })

    /// Each option's declaration, which the command line lists and every message that names
    /// the option spells it from.
    enum Option {
        // Unconditional: `--timeout -1` is a wrong value, not a missing one.
        static let timeout = OptionDeclaration<HostOptions>.typed(
            long: "timeout", .positiveDuration, valueName: "duration", default: defaultTimeout,
            help: "Bound on name resolution: 5, 1.5s, 300ms, 1m."
        ) { $0.timeout = $1 }
        // Unconditional: `--connect -1` is a wrong value, not a missing one.
        static let connect = OptionDeclaration<HostOptions>.integer(
            long: "connect", .unconditional, valueName: "port",
            help: "Race TCP connections to this port as Happy Eyeballs does (RFC 8305): the winner and each family's time."
        ) { $0.connectPort = $1 }
    }

    func execute() throws -> ExitStatus {
        let collected = try TargetList.gather(names, from: targets.files, limit: .stateless)
        _ = try collected.map(TargetArgument.validateHostName)
        let hosts = collected.texts
        let limit = timeout
        let family = try path.family(for: "a host")
        let port = try checkedPort(hosts: hosts.count)
        var evaluator = try path.makeEvaluator()
        evaluator.paths.interfaceName = try interface.checkedName()
        OutputChannel.standard.gatherBlocksUnlessTerminal()
        if let port { return try race(hosts[0], port: port, family: family, evaluator: evaluator) }
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

    /// `--connect`'s port, checked: one name, a port from 1 to 65535, and no `-I` (the race's
    /// connections take the kernel's route).
    private func checkedPort(hosts: Int) throws -> UInt16? {
        guard let connectPort else { return nil }
        guard let port = UInt16(exactly: connectPort), port > 0 else {
            throw UsageError("\(Option.connect.spelled): '\(connectPort)' is not a port from 1 to 65535")
        }
        if hosts != 1 { throw UsageError("\(Option.connect.spelled) races one name's addresses: give one name") }
        if interface.interface != nil {
            let letter = InterfaceOptions.Option.interface.spelled
            throw UsageError("\(Option.connect.spelled) connects by the kernel's route: it cannot be combined with \(letter)")
        }
        return port
    }

    /// `--connect`: the name's report, then its addresses raced within `--timeout`; the exit
    /// status is the report's, and 1 when no address connected.
    private func race(_ host: String, port: UInt16, family: AddressFamily?, evaluator: ReachabilityEvaluator) throws -> ExitStatus {
        let report = try evaluator.evaluate(host: host, family: family, timeout: timeout)
        let race = try HappyEyeballs.race(to: report.paths.map(\.destination), port: port, timeout: timeout)
        let renderer = ConnectRaceRenderer(port: port)
        if !output.quiet {
            let text = output.json
                ? output.renderer.json(report, command: "host", adding: "connect", renderer.json(race)) + "\n"
                : output.renderer.text(report) + renderer.text(race)
            OutputChannel.standard.write(text)
        }
        let status = ExitStatus.of(report)
        return status == .success && race.winner == nil ? .notReachable : status
    }
}

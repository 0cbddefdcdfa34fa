import ReachCommandLine
import ReachCore
import ReachSystem

/// `reach status`: is the internet reachable. Its command line as plain values, and the run.
struct StatusOptions: Equatable {
    var path = PathOptions()
    var references: [String] = []
    /// `--all`: every path out, per family, in the kernel's order.
    var all = false
    var interface = InterfaceOptions()
    var probes = ProbeOptions()
    var output = OutputOptions()

    /// What help says the command is.
    static let about = CommandAbout(
        path: "reach status",
        abstract: "Is the internet reachable: the route the kernel would pick, per address family.",
        discussion: """
            With neither \(PathOptions.Option.ipv4.spelled) nor \(PathOptions.Option.ipv6.spelled), \
            reachable when either family is; with both, when both are.
            """)

    static let commandLine = CommandLineDeclaration<StatusOptions>(
        about: about,
        operand: .none,
        options: PathOptions.commandLine { $1(&$0.path) }
            + [Option.reference, Option.all] + InterfaceOptions.commandLine { $1(&$0.interface) }
            + ProbeOptions.commandLine { $1(&$0.probes) } + OutputOptions.commandLine { $1(&$0.output) })

    /// Each option's declaration, which the command line lists and every message that names
    /// the option spells it from.
    enum Option {
        static let reference = OptionDeclaration<StatusOptions>.values(
            long: "reference", .next, valueName: "address",
            help: "Look this address up for its family instead of 8.8.8.8 or 2001:4860:4860::8888 (one per family)."
        ) { $0.references.append($1) }
        static let all = OptionDeclaration<StatusOptions>.flag(
            long: "all",
            help: "Every path out, per family: each link with a default route, in the order the kernel would use them."
        ) { $0.all = true }
    }

    /// The reference addresses, one per family at most, each of a family that is evaluated.
    func referenceAddresses() throws -> [IPAddress] {
        var addresses: [IPAddress] = []
        for text in references {
            let address = try TargetArgument.address(text)
            if addresses.contains(where: { $0.family == address.family }) {
                let shown = PrintableText.escaped(text)
                let family = address.family.label
                throw UsageError("\(Option.reference.spelled): one address per family, and '\(shown)' is the second \(family) one")
            }
            if !path.families.isEmpty && !path.families.contains(address.family) {
                let evaluated = path.singleFamily?.label ?? ""
                throw UsageError("\(Option.reference.spelled) \(address) is \(address.family.label), and only \(evaluated) is evaluated")
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
        evaluator.listsAllPaths = all
        evaluator.paths.interfaceName = try interface.checkedName()
        OutputChannel.standard.gatherBlocksUnlessTerminal()
        var report = try evaluator.evaluateInternet(families: path.families)
        if let checker {
            report.attach(try probes.check(checker, routeUsable: report.isReachable))
        }
        return output.emit(report, command: "status")
    }
}

import ReachCommandLine
import ReachCore
import ReachSystem

/// `reach addr`: can these addresses be reached. Its command line as plain values, and the run.
struct AddrOptions: Equatable {
    var addresses: [String] = []
    var targets = TargetListOptions()
    var path = PathOptions()
    var selectors = RouteSelectorOptions()
    var interface = InterfaceOptions()
    var output = OutputOptions()

    /// What help says the command is.
    static let about = CommandAbout(
        path: "reach addr",
        abstract: "Can these IP addresses be reached: the kernel's route lookup decides.",
        discussion: """
            Several addresses: a line (or, with \(OutputOptions.Option.json.spelled), a result) each, in the order given. \
            Exit status: 0 all reachable (\(TargetListOptions.Option.any.spelled): at least one), 1 otherwise.
            """)

    static let commandLine = CommandLineDeclaration<AddrOptions>(
        about: about,
        operand: .variadic(OperandName("addresses", help: "IPv4 or IPv6 literals; IPv6 may carry %zone.")) { $0.addresses.append($1) },
        options: TargetListOptions.commandLine { $1(&$0.targets) } + PathOptions.commandLine { $1(&$0.path) }
            + RouteSelectorOptions.commandLine { $1(&$0.selectors) } + InterfaceOptions.commandLine { $1(&$0.interface) }
            + OutputOptions.commandLine { $1(&$0.output) })

    func execute() throws -> ExitStatus {
        let collected = try TargetList.gather(addresses, from: targets.files, limit: .stateless)
        let texts = collected.texts
        var chosen = try selectors.selectors()
        if let name = try interface.checkedName() {
            // -I is --oif by another name (ping's letter); both at once would be two answers to one question.
            if chosen.outputInterface != nil {
                let (letter, oif) = (InterfaceOptions.Option.interface.spelled, RouteSelectorOptions.Option.oif.spelled)
                throw UsageError("\(letter) and \(oif) name the same thing: give one")
            }
            chosen.outputInterface = NetworkInterface.index(named: name)
        }
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

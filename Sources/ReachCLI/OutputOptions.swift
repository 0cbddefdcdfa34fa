import ReachCommandLine
import ReachCore
import ReachSystem

/// --json, --flags, -q: how results are printed; shared by every evaluating command.
struct OutputOptions: Equatable {
    var json = false
    var flags = false
    var quiet = false

    /// The options, declared for a subcommand whose field `group` holds them.
    static func commandLine<Outer>(_ group: @escaping GroupField<Outer, OutputOptions>) -> [OptionDeclaration<Outer>] {
        [.member(Option.json, in: group), .member(Option.flags, in: group), .member(Option.quiet, in: group)]
    }

    /// Each option's declaration, which the commands list and every message that names the
    /// option spells it from.
    enum Option {
        static let json = OptionDeclaration<OutputOptions>.flag(
            long: "json", help: "Print JSON: one object on one line; watch prints one per event (schema in reach(1))."
        ) { $0.json = true }
        static let flags = OptionDeclaration<OutputOptions>.flag(long: "flags", help: "Add the flag string (WR ctiCDld) to text output.") {
            $0.flags = true
        }
        static let quiet = OptionDeclaration<OutputOptions>.flag("q", long: "quiet", help: "Print nothing; the exit status tells.") {
            $0.quiet = true
        }
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

import ReachCommandLine
import ReachCore
import ReachSystem

/// --targets-from and --any: where targets come from, and when several succeed.
struct TargetListOptions: Equatable {
    /// Every --targets-from, in the order given.
    var files: [String] = []
    var any = false

    /// The options, declared for a subcommand whose field `group` holds them.
    static func commandLine<Outer>(_ group: @escaping GroupField<Outer, TargetListOptions>) -> [OptionDeclaration<Outer>] {
        [.member(Option.targetsFrom, in: group), .member(Option.any, in: group)]
    }

    /// Each option's declaration, which the commands list and every message that names the
    /// option spells it from.
    enum Option {
        static let targetsFrom = OptionDeclaration<TargetListOptions>.values(
            long: "targets-from", .next, valueName: "file", help: "Read targets from FILE, one a line ('-': standard input)."
        ) { $0.files.append($1) }
        static let any = OptionDeclaration<TargetListOptions>.flag(
            long: "any", help: "With several targets: succeed when any one is reachable, not only when all are."
        ) { $0.any = true }
    }
}

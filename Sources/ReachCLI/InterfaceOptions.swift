import ReachCommandLine
import ReachCore
import ReachSystem

/// `-I IFACE` (ping -I's letter) for status, host, addr and watch: the answer for one link,
/// the route looked up with it as the output interface, as `ip route get ... oif` does.
struct InterfaceOptions: Equatable {
    var interface: String?

    /// The option, declared for a subcommand whose field `group` holds it.
    static func commandLine<Outer>(_ group: @escaping GroupField<Outer, InterfaceOptions>) -> [OptionDeclaration<Outer>] {
        [.member(Option.interface, in: group)]
    }

    /// The option's declaration, which the commands list and every message that names the
    /// option spells it from.
    enum Option {
        static let interface = OptionDeclaration<InterfaceOptions>.value(
            "I", .next, valueName: "interface",
            help: "Only the paths through this link: routes looked up with it as the output interface (ip route get ... oif)."
        ) { $0.interface = $1 }
    }

    /// The link's name, checked: a Linux interface name (IFNAMSIZ, dev_valid_name in
    /// net/core/dev.c) of a link that exists, unless `waiting` (`watch --until`: it may come later).
    func checkedName(waiting: Bool = false) throws -> String? {
        guard let interface else { return nil }
        let shown = PrintableText.escaped(interface)
        if !Self.isValidName(interface) { throw UsageError("\(Option.interface.spelled): invalid interface name '\(shown)'") }
        if !waiting && NetworkInterface.index(named: interface) == nil {
            throw UsageError("\(Option.interface.spelled): unknown interface '\(shown)'")
        }
        return interface
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 15 && name != "." && name != ".."
            && !name.unicodeScalars.contains { $0 == "/" || $0 == ":" || $0.properties.isWhitespace || $0.value < 0x20 || $0 == "\u{FFFD}" }
    }
}

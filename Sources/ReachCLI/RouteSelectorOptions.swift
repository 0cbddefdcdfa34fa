import ReachCommandLine
import ReachCore
import ReachSystem

/// `ip route get`'s selectors as written; `selectors()` checks them.
struct RouteSelectorOptions: Equatable {
    var source: String?
    var outputInterface: String?
    var mark: String?
    var uid: String?

    /// The options, declared for a subcommand whose field `group` holds them.
    static func commandLine<Outer>(_ group: @escaping GroupField<Outer, RouteSelectorOptions>) -> [OptionDeclaration<Outer>] {
        [
            .member(Option.from, in: group), .member(Option.oif, in: group), .member(Option.mark, in: group),
            .member(Option.uid, in: group),
        ]
    }

    /// Each option's declaration, which the commands list and every message that names the
    /// option spells it from.
    enum Option {
        static let from = OptionDeclaration<RouteSelectorOptions>.value(
            long: "from", .next, valueName: "address", help: "Look routes up as from this source address (ip route get ... from)."
        ) { $0.source = $1 }
        static let oif = OptionDeclaration<RouteSelectorOptions>.value(
            long: "oif", .next, valueName: "interface", help: "Look routes up through this interface (ip route get ... oif)."
        ) { $0.outputInterface = $1 }
        // Unconditional: `--uid -1` is a wrong value, not a missing one.
        static let mark = OptionDeclaration<RouteSelectorOptions>.value(
            long: "mark", .unconditional, valueName: "mark",
            help: "Look routes up with this firewall mark, decimal or 0x hex (ip route get ... mark)."
        ) { $0.mark = $1 }
        static let uid = OptionDeclaration<RouteSelectorOptions>.value(
            long: "uid", .unconditional, valueName: "uid", help: "Look routes up for this user id (ip route get ... uid)."
        ) { $0.uid = $1 }
    }

    /// The selectors, each checked: an address without a zone, an interface that exists, and
    /// numbers as iproute2 reads them (get_u32 in lib/utils.c: decimal, or 0x hex).
    func selectors() throws -> RouteSelectors {
        var selectors = RouteSelectors()
        if let source {
            guard let address = try? IPAddress.parse(source), address.zone == nil else {
                throw UsageError("\(Option.from.spelled): invalid IP address '\(PrintableText.escaped(source))'")
            }
            selectors.source = address
        }
        if let outputInterface {
            guard let index = NetworkInterface.index(named: outputInterface) else {
                throw UsageError("\(Option.oif.spelled): unknown interface '\(PrintableText.escaped(outputInterface))'")
            }
            selectors.outputInterface = index
        }
        if let mark { selectors.mark = try Self.number(mark, option: Option.mark.spelled) }
        if let uid { selectors.uid = try Self.number(uid, option: Option.uid.spelled) }
        return selectors
    }

    /// A destination must be of the source's family: the kernel looks up one family at a time.
    static func check(_ destination: IPAddress, against selectors: RouteSelectors, written text: String) throws {
        guard let source = selectors.source, source.family != destination.family else { return }
        let shown = PrintableText.escaped(text)
        throw UsageError("\(Option.from.spelled) \(source) is \(source.family.label), '\(shown)' is \(destination.family.label)")
    }

    static func number(_ text: String, option: String) throws -> UInt32 {
        let hex = text.hasPrefix("0x") || text.hasPrefix("0X")
        let digits = hex ? text.dropFirst(2) : text[...]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = UInt32(digits, radix: hex ? 16 : 10) else {
            throw UsageError("\(option): '\(PrintableText.escaped(text))' is not a number from 0 to 4294967295")
        }
        return value
    }
}

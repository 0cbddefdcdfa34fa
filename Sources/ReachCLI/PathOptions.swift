import ReachCommandLine
import ReachCore
import ReachSystem

/// -4 / -6, --no-cellular and --no-expensive: which paths count.
struct PathOptions: Equatable {
    var ipv4 = false
    var ipv6 = false
    var noCellular = false
    var noExpensive = false

    /// The options, declared for a subcommand whose field `group` holds them.
    static func commandLine<Outer>(_ group: @escaping GroupField<Outer, PathOptions>) -> [OptionDeclaration<Outer>] {
        [
            .member(Option.ipv4, in: group), .member(Option.ipv6, in: group), .member(Option.noCellular, in: group),
            .member(Option.noExpensive, in: group),
        ]
    }

    /// Each option's declaration, which the commands list and every message that names the
    /// option spells it from.
    enum Option {
        static let ipv4 = OptionDeclaration<PathOptions>.flag("4", help: "IPv4 only.") { $0.ipv4 = true }
        static let ipv6 = OptionDeclaration<PathOptions>.flag("6", help: "IPv6 only.") { $0.ipv6 = true }
        static let noCellular = OptionDeclaration<PathOptions>.flag(
            long: "no-cellular", help: "Count a path over a cellular link as not reachable."
        ) { $0.noCellular = true }
        static let noExpensive = OptionDeclaration<PathOptions>.flag(
            long: "no-expensive", help: "Count an expensive path (cellular, or metered in NetworkManager) as not reachable."
        ) { $0.noExpensive = true }
    }

    var families: Set<AddressFamily> {
        var families: Set<AddressFamily> = []
        if ipv4 { families.insert(.ipv4) }
        if ipv6 { families.insert(.ipv6) }
        return families
    }

    /// The single family a lookup is restricted to; nil when both or neither were named.
    var singleFamily: AddressFamily? { families.count == 1 ? families.first : nil }

    /// An address literal has one family: -4 with -6 is refused for it, and -4 or -6 must
    /// name its family.
    func check(_ address: IPAddress, written text: String) throws {
        try FamilyMismatch.check(address, against: try family(for: "an address"), target: text)
    }

    /// The family one target is looked up in, nil for either: -4 with -6 is refused for a
    /// single target (`status` alone takes both, to require both).
    func family(for target: String) throws -> AddressFamily? {
        if families.count > 1 { throw UsageError("\(Option.ipv4.spelled) and \(Option.ipv6.spelled) cannot be combined for \(target)") }
        return singleFamily
    }

    /// `linkFacts`: ModemManager and NetworkManager on the system bus, asked only when a
    /// path leaves through a link other than loopback.
    func makeEvaluator(linkFacts: LinkFactsSource? = BusLinkFacts.systemBus()) throws -> ReachabilityEvaluator {
        try .live(allowsCellular: !noCellular, allowsExpensive: !noExpensive, linkFacts: linkFacts)
    }
}

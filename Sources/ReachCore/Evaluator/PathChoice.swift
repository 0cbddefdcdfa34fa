import ReachSystem

/// One way out of the host for one family (`status --all`): a default route's next hop, in a
/// table a policy rule selects, with the verdict on it.
public struct PathChoice: Hashable, Sendable {
    /// Why the kernel passes over a path it would otherwise take in its turn.
    public enum Skip: String, Hashable, Sendable {
        /// The next hop's link has no carrier (RTNH_F_LINKDOWN) and the link's
        /// ignore_routes_with_linkdown is set: fib_table_lookup (net/ipv4/fib_trie.c) and
        /// find_match (net/ipv6/route.c) go on to the next route.
        case linkDownIgnored = "linkdown_ignored"
        /// A dead next hop (RTNH_F_DEAD, its link down), which every lookup skips.
        case deadNextHop = "dead"
    }

    /// The rule whose table holds the route: its priority and what it matches.
    public var rulePriority: UInt32
    public var ruleSelector: String
    public var table: UInt32
    public var metric: UInt32
    /// The route's prefix when it is not a default route: the more specific route the lookup
    /// took instead (a VPN's `0.0.0.0/1` and `128.0.0.0/1`); nil for `default`.
    public var prefix: String?
    public var routeType: RouteType
    /// The verdict on the path, as for the route in use: link, gateway, source, flags, reason.
    public var report: PathReport
    public var skip: Skip?
    /// The kernel's route lookup for the family's reference address answered with this path.
    public var inUse = false

    public init(rulePriority: UInt32, ruleSelector: String, table: UInt32, metric: UInt32, prefix: String? = nil, routeType: RouteType,
                report: PathReport, skip: Skip? = nil, inUse: Bool = false) {
        self.rulePriority = rulePriority
        self.ruleSelector = ruleSelector
        self.table = table
        self.metric = metric
        self.prefix = prefix
        self.routeType = routeType
        self.report = report
        self.skip = skip
        self.inUse = inUse
    }

    public var family: AddressFamily { report.family }

    /// `main`, `default`, `local`, or the number, as `ip route` names the tables (rt_tables).
    public var tableName: String {
        switch table {
        case 253: "default"
        case 254: "main"
        case 255: "local"
        default: "\(table)"
        }
    }
}

/// The kernel's order of the paths out: rules by priority, each table once (under the first
/// rule that sends packets to it), and in a table the default routes by metric, those the
/// lookup skips after the others.
public enum PathOrder {
    /// A next hop in the order the kernel tries it; `hop` nil for a reject route (blackhole,
    /// unreachable, prohibit), which ends the lookup.
    public struct Candidate: Equatable, Sendable {
        public var rule: PolicyRule
        public var route: TableRoute
        public var hop: NextHop?
        public var skip: PathChoice.Skip?
    }

    /// `ignoresLinkDown`: whether the link with this index has ignore_routes_with_linkdown set.
    public static func candidates(rules: [PolicyRule], routes: [TableRoute], ignoresLinkDown: (UInt32) -> Bool) -> [Candidate] {
        // Ties keep the dump's order: rules of one priority are tried as the kernel lists them.
        let byPriority = rules.enumerated().sorted { ($0.element.priority, $0.offset) < ($1.element.priority, $1.offset) }
        var tablesSeen: [UInt32] = []
        var ordered: [Candidate] = []
        for rule in byPriority.map(\.element) where rule.canSelectDefaultRoute && !tablesSeen.contains(rule.table) {
            tablesSeen.append(rule.table)
            var entries: [Candidate] = []
            for route in routes where route.isDefault && route.route.table == rule.table && route.route.family == rule.family {
                if route.nextHops.isEmpty { entries.append(Candidate(rule: rule, route: route, hop: nil, skip: nil)) }
                for hop in route.nextHops {
                    entries.append(Candidate(rule: rule, route: route, hop: hop, skip: skip(hop, ignoresLinkDown)))
                }
            }
            let ranked = entries.enumerated().sorted { rank($0.element, $0.offset) < rank($1.element, $1.offset) }
            ordered += ranked.map(\.element)
        }
        return ordered
    }

    private static func rank(_ candidate: Candidate, _ offset: Int) -> (Int, UInt32, Int) {
        (candidate.skip == nil ? 0 : 1, candidate.route.metric, offset)
    }

    /// A linkdown next hop whose link ignores it is dumped dead too (fib_nexthop_info in
    /// net/ipv4/fib_semantics.c): the carrier is the reason, so it is named first.
    static func skip(_ hop: NextHop, _ ignoresLinkDown: (UInt32) -> Bool) -> PathChoice.Skip? {
        if hop.flags.contains(.linkDown), let index = hop.outputInterface, ignoresLinkDown(index) { return .linkDownIgnored }
        if hop.flags.contains(.dead) { return .deadNextHop }
        return nil
    }

    /// The route a lookup took when it was no default route (a VPN's `0.0.0.0/1`): the most
    /// specific route of the answer's table through its link and gateway that holds
    /// `destination`, as the table itself would match it; nil when none does.
    public static func coveringRoute(of destination: IPAddress, answer: RouteAnswer, in routes: [TableRoute]) -> TableRoute? {
        routes.filter { route in
            route.route.table == answer.table && route.sourceLength == 0 && route.route.type == answer.type
                && route.nextHops.contains { $0.outputInterface == answer.outputInterface && $0.gateway == answer.gateway }
                && route.route.destination.map { holds($0, length: route.destinationLength, destination) } == true
        }.max { $0.destinationLength < $1.destinationLength }
    }

    /// Whether `address` is in the prefix `network`/`length`.
    static func holds(_ network: IPAddress, length: UInt8, _ address: IPAddress) -> Bool {
        let bits = Int(length)
        guard network.family == address.family, network.bytes.count == address.bytes.count, bits <= network.bytes.count * 8 else {
            return false
        }
        for index in 0..<(bits / 8) where network.bytes[index] != address.bytes[index] { return false }
        guard bits % 8 > 0 else { return true }
        let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits % 8))
        return network.bytes[bits / 8] & mask == address.bytes[bits / 8] & mask
    }

    /// The candidate the kernel's lookup answered with: same table, link and gateway.
    public static func inUse(_ candidates: [Candidate], answer: RouteLookupResult) -> Int? {
        guard case .route(let route) = answer else { return nil }
        return candidates.firstIndex { candidate in
            candidate.route.route.table == route.table && candidate.hop?.outputInterface == route.outputInterface
                && candidate.hop?.gateway == route.gateway
        }
    }
}

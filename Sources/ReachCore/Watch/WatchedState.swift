import ReachSystem

/// What `watch` compares between two evaluations (docs/WATCH.md): per path, whether it is
/// reachable, the outgoing link's name and kind, and the gateway; for a host, the set
/// of its addresses' paths (order ignored) and whether the name resolved at all; with
/// `--probe`, the connectivity state (none, limited, portal, full).
/// For a cellular link, the generation, roaming, operator and modem state count too, and
/// for every path whether it is expensive; the signal strength does not.
/// With `--all`, each path out too: its place in the kernel's order, its verdict, and whether
/// it is in use or passed over.
/// Reason, flags, source address and ifindex are shown, but a change in them alone
/// is no transition: one `ip link set dev X down` must print exactly one line.
public struct WatchedState: Hashable, Sendable {
    public struct Path: Hashable, Sendable {
        public var destination: IPAddress
        public var isReachable: Bool
        public var linkName: String?
        public var linkKind: LinkKind?
        public var gateway: IPAddress?
        var expensive: Bool
        var generation: CellularGeneration?
        var roaming: Bool?
        var operatorName: String?
        var modemState: ModemState?

        public init(_ report: PathReport) {
            destination = report.destination
            isReachable = report.isReachable
            linkName = report.link?.name
            linkKind = report.link?.kind
            gateway = report.gateway
            expensive = report.expensive
            let cellular = report.link?.cellular ?? report.underlyingLink?.cellular
            generation = cellular?.generation
            roaming = cellular?.roaming
            operatorName = cellular?.operatorName
            modemState = cellular?.modemState
        }
    }

    /// What `watch --all` compares of one path out.
    public struct Alternative: Hashable, Sendable {
        /// Its place among its family's paths, from 1.
        public var rank: Int
        public var family: AddressFamily
        public var linkName: String?
        public var gateway: IPAddress?
        public var table: UInt32
        /// nil for a default route.
        public var prefix: String?
        public var isReachable: Bool
        public var inUse: Bool
        public var skip: PathChoice.Skip?

        public init(_ choice: PathChoice, rank: Int) {
            self.rank = rank
            family = choice.family
            linkName = choice.report.link?.name
            gateway = choice.report.gateway
            table = choice.table
            prefix = choice.prefix
            isReachable = choice.report.isReachable
            inUse = choice.inUse
            skip = choice.skip
        }

        /// The same path from one evaluation to the next: its family, link, gateway, table and route.
        public var identity: String {
            "\(family.label) \(linkName ?? "-") \(gateway?.description ?? "-") \(table) \(prefix ?? "default")"
        }

        /// Each family's paths with their places in its order.
        public static func ranked(_ choices: [PathChoice]) -> [Alternative] {
            choices.indices.map { index in
                let family = choices[index].family
                return Alternative(choices[index], rank: choices[..<index].filter { $0.family == family }.count + 1)
            }
        }
    }

    public var nameResolved: Bool
    public var paths: Set<Path>
    /// nil without probes.
    public var connectivity: ConnectivityState?
    /// `--all`: every path out, in order; empty without it.
    public var alternatives: [Alternative]

    public init(_ report: ReachabilityReport) {
        nameResolved = report.resolutionFailure == nil
        paths = Set(report.paths.map(Path.init))
        connectivity = report.connectivity?.state
        alternatives = Alternative.ranked(report.allPaths ?? [])
    }
}

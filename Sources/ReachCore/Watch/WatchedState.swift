import ReachSystem

/// What `watch` compares between two evaluations (docs/WATCH.md): per path, whether it is
/// reachable, the outgoing link's name and kind, and the gateway; for a host, the set
/// of its addresses' paths (order ignored) and whether the name resolved at all; with
/// `--probe`, the connectivity state (none, limited, portal, full).
/// For a cellular link, the generation, roaming, operator and modem state count too, and
/// for every path whether it is expensive; the signal strength does not.
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

    public var nameResolved: Bool
    public var paths: Set<Path>
    /// nil without probes.
    public var connectivity: ConnectivityState?

    public init(_ report: ReachabilityReport) {
        nameResolved = report.resolutionFailure == nil
        paths = Set(report.paths.map(Path.init))
        connectivity = report.connectivity?.state
    }
}

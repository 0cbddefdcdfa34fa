import ReachSystem

/// The machine's way to the internet as metrics, per address family: what `reach watch`
/// compares (reachable, link, kind, gateway), the reason, how many times it changed and
/// when it last did. Fed every report `watch` evaluates; the exporter's `/metrics` and
/// `reach watch --textfile` both render `samples`.
public struct InternetMetrics: Sendable, Equatable {
    public struct Family: Sendable, Equatable {
        public var reachable: Bool
        public var link: String
        public var kind: String
        public var gateway: String
        public var reason: String
        public var transitions: Int
        /// The last change, or the first evaluation.
        public var lastTransition: RealtimeInstant
    }

    public private(set) var ipv4: Family?
    public private(set) var ipv6: Family?
    /// With probes: the connectivity state; nil without.
    public private(set) var connectivity: ConnectivityState?
    public private(set) var probing: Bool

    public init(probing: Bool = false) {
        self.probing = probing
    }

    /// Takes the report evaluated at `time`. A family's transition is a change in what
    /// `watch` compares for its path (`WatchedState.Path`); reason alone is none.
    public mutating func observe(_ report: ReachabilityReport, at time: RealtimeInstant) {
        for family in AddressFamily.allCases {
            guard let path = report.paths.first(where: { $0.family == family }) else { continue }
            let previous = family == .ipv4 ? ipv4 : ipv6
            var next = Family(
                reachable: path.isReachable, link: path.link?.name ?? "", kind: path.link?.kind.rawValue ?? "",
                gateway: path.gateway?.description ?? "", reason: path.reason?.rawValue ?? "",
                transitions: previous?.transitions ?? 0, lastTransition: previous?.lastTransition ?? time)
            if let previous, previous.reachable != next.reachable || previous.link != next.link
                || previous.kind != next.kind || previous.gateway != next.gateway
            {
                next.transitions += 1
                next.lastTransition = time
            }
            if family == .ipv4 { ipv4 = next } else { ipv6 = next }
        }
        if probing { connectivity = report.connectivity?.state ?? connectivity }
    }

    public static let connectivityStates: [ConnectivityState] = [.full, .limited, .portal, .none]

    /// The samples, families in a fixed order: reachable, info, transitions, last transition,
    /// then connectivity with probes.
    public var samples: [MetricSample] {
        let families = [("ipv4", ipv4), ("ipv6", ipv6)].compactMap { name, value in value.map { (name, $0) } }
        var samples: [MetricSample] = []
        for (name, family) in families {
            samples.append(MetricSample(
                "reach_internet_reachable", help: "Whether the kernel has a usable route to the internet (1) or not (0)",
                labels: [.init("family", name)], value: family.reachable ? 1 : 0))
        }
        for (name, family) in families {
            samples.append(MetricSample(
                "reach_internet_info", help: "The path to the internet: outgoing link, its kind, gateway and unreachable reason",
                labels: [.init("family", name), .init("link", family.link), .init("kind", family.kind),
                         .init("gateway", family.gateway), .init("reason", family.reason)],
                value: 1))
        }
        for (name, family) in families {
            samples.append(MetricSample(
                "reach_transitions_total", help: "Changes of the path to the internet (reachability, link, kind or gateway)",
                kind: .counter, labels: [.init("family", name)], value: Double(family.transitions)))
        }
        for (name, family) in families {
            samples.append(MetricSample(
                "reach_last_transition_timestamp_seconds", help: "When the path to the internet last changed, or was first seen",
                // Whole milliseconds, as the watch events' timestamps print.
                labels: [.init("family", name)], value: Double(family.lastTransition.millisecondsSinceEpoch) / 1000))
        }
        if probing, let connectivity {
            for state in Self.connectivityStates {
                samples.append(MetricSample(
                    "reach_connectivity_state", help: "The connectivity state the probes decided (1 for the current one)",
                    labels: [.init("state", state.rawValue)], value: state == connectivity ? 1 : 0))
            }
        }
        return samples
    }
}

import ReachSystem

extension PathEvaluator {
    /// The evaluator over the running system, assembled in this one place for the command
    /// line, the exporter's `/metrics` watch and its route probe: the kernel's routes and
    /// links over a new rtnetlink socket, and `linkFacts` (by default ModemManager's and
    /// NetworkManager's word from the system bus, asked only when a path leaves through a
    /// link other than loopback; a machine without the bus asks nothing).
    public static func live(
        allowsCellular: Bool = true, allowsExpensive: Bool = true, linkFacts: LinkFactsSource? = BusLinkFacts.systemBus()
    ) throws -> PathEvaluator {
        let client = RouteNetlinkClient(transport: try NetlinkSocket())
        var evaluator = PathEvaluator(
            kernel: client, allowsCellular: allowsCellular, allowsExpensive: allowsExpensive, linkFacts: linkFacts)
        evaluator.tables = client
        return evaluator
    }
}

extension ReachabilityEvaluator {
    /// `PathEvaluator.live`'s paths, names resolved by the system's resolver.
    public static func live(
        allowsCellular: Bool = true, allowsExpensive: Bool = true, linkFacts: LinkFactsSource? = BusLinkFacts.systemBus()
    ) throws -> ReachabilityEvaluator {
        ReachabilityEvaluator(paths: try .live(allowsCellular: allowsCellular, allowsExpensive: allowsExpensive, linkFacts: linkFacts))
    }
}

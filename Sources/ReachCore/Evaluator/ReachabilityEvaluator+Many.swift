import ReachSystem

extension ReachabilityEvaluator {
    /// One report per address, in order, over one netlink socket; each link asked about once.
    public func evaluate(addresses: [IPAddress]) throws -> [ReachabilityReport] {
        let evaluator = sharingLinks()
        return try addresses.map { try evaluator.evaluate(address: $0) }
    }

    /// One report per name, in order. The names are resolved together (`resolve(all:)`), so a
    /// name that hangs in DNS costs the others nothing; a lookup that could not run is that
    /// name's failure, not the run's.
    public func evaluate(hosts names: [String], family: AddressFamily?, timeoutMilliseconds: Int32) throws -> [ReachabilityReport] {
        let outcomes = try resolver.resolve(all: names, family: family, timeoutMilliseconds: timeoutMilliseconds)
        let evaluator = sharingLinks()
        var reports: [ReachabilityReport] = []
        reports.reserveCapacity(names.count)
        for (name, outcome) in zip(names, outcomes) {
            reports.append(try evaluator.evaluate(host: name, outcome: outcome))
        }
        return reports
    }

    /// The same evaluator, remembering each link's facts for the rest of the run: thousands of
    /// targets leave through a handful of links, and RTM_GETLINK per target would double the
    /// netlink requests.
    func sharingLinks() -> ReachabilityEvaluator {
        var evaluator = self
        evaluator.paths.kernel = LinkRememberingFacts(paths.kernel)
        return evaluator
    }
}

/// Route lookups passed through, link answers remembered by index (an array, not a
/// dictionary: a run meets few links).
final class LinkRememberingFacts: KernelRoutingFacts {
    private let kernel: KernelRoutingFacts
    private var links: [(index: UInt32, facts: LinkFacts?)] = []

    init(_ kernel: KernelRoutingFacts) {
        self.kernel = kernel
    }

    func lookupRoute(to destination: IPAddress) throws -> RouteLookupResult {
        try kernel.lookupRoute(to: destination)
    }

    func link(index: UInt32) throws -> LinkFacts? {
        if let known = links.first(where: { $0.index == index }) { return known.facts }
        let facts = try kernel.link(index: index)
        links.append((index, facts))
        return facts
    }
}

import ReachSystem

extension ReachabilityEvaluator {
    /// One report per address, in order, over one netlink socket; each link asked about once
    /// (a run that calls this for one part of its list after another does so on one
    /// `sharingLinks()` evaluator).
    public func evaluate(addresses: [IPAddress]) throws -> [ReachabilityReport] {
        try sharingLinks().paths.evaluate(addresses).map { ReachabilityReport(subject: .address($0.destination), paths: [$0]) }
    }

    /// One report per name, in order. The names are resolved together (`resolve(all:)`), so a
    /// name that hangs in DNS costs the others nothing; a lookup that could not run is that
    /// name's failure, not the run's.
    public func evaluate(hosts names: [String], family: AddressFamily?, timeout: TimeSpan) throws -> [ReachabilityReport] {
        let outcomes = try resolver.resolve(all: names, family: family, timeout: timeout)
        let evaluator = sharingLinks()
        var reports: [ReachabilityReport] = []
        reports.reserveCapacity(names.count)
        for (name, outcome) in zip(names, outcomes) {
            reports.append(try evaluator.evaluate(host: name, outcome: outcome))
        }
        return reports
    }

    /// The same evaluator, remembering each link's facts (netlink's, sysfs's, the services')
    /// for the rest of the run: thousands of targets leave through a handful of links, and
    /// asking per target would double the netlink requests and read sysfs each time.
    public func sharingLinks() -> ReachabilityEvaluator {
        if paths.linkMemo != nil { return self }
        var evaluator = self
        evaluator.paths.kernel = LinkRememberingFacts(paths.kernel)
        evaluator.paths.linkMemo = LinkMemo()
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

    func lookupRoutes(to destinations: [IPAddress], selectors: RouteSelectors) throws -> [RouteLookupResult] {
        try kernel.lookupRoutes(to: destinations, selectors: selectors)
    }

    func link(index: UInt32) throws -> LinkFacts? {
        if let known = links.first(where: { $0.index == index }) { return known.facts }
        let facts = try kernel.link(index: index)
        links.append((index, facts))
        return facts
    }
}

import ReachSystem

extension PathEvaluator {
    /// Every path out of one family, in the order the kernel would use them, the one its
    /// lookup for `destination` takes first, each with its verdict. With an output interface
    /// among the selectors, that link's paths only. Empty without `tables`.
    public func allPaths(to destination: IPAddress) throws -> [PathChoice] {
        guard let tables, let chosen = currentSelectors() else { return [] }
        let family = destination.family
        let rules = try tables.rules(family: family)
        let routes = try tables.routes(family: family)
        let linkDownPolicy = ignoresLinkDown
        var candidates = PathOrder.candidates(rules: rules, routes: routes) { linkDownPolicy($0, family) }
        let lookup = try kernel.lookupRoutes(to: [destination], selectors: chosen)[0]
        var inUse = PathOrder.inUse(candidates, answer: lookup)
        if inUse == nil, let taken = Self.takenRoute(lookup, to: destination, rules: rules, routes: routes) {
            candidates.insert(taken, at: 0)
            inUse = 0
        }
        var choices: [PathChoice] = []
        for (index, candidate) in candidates.enumerated() {
            if let wanted = chosen.outputInterface, candidate.hop?.outputInterface != wanted { continue }
            let route = candidate.route
            let prefix = route.isDefault ? nil : route.route.destination.map { "\($0)/\(route.destinationLength)" }
            let report = try evaluate(destination, answer: .route(Self.answer(candidate)))
            choices.append(PathChoice(
                rulePriority: candidate.rule.priority, ruleSelector: candidate.rule.selectorText, table: route.route.table,
                metric: route.metric, prefix: prefix, routeType: route.route.type, report: report, skip: candidate.skip,
                inUse: index == inUse))
        }
        return choices.filter(\.inUse) + choices.filter { !$0.inUse }
    }

    /// The route the lookup took when it was no default route (a VPN's split routes), with
    /// the first rule that sends packets to its table: the path in use is listed too.
    static func takenRoute(_ lookup: RouteLookupResult, to destination: IPAddress, rules: [PolicyRule],
                           routes: [TableRoute]) -> PathOrder.Candidate? {
        guard case .route(let answer) = lookup, let route = PathOrder.coveringRoute(of: destination, answer: answer, in: routes),
            let hop = route.nextHops.first(where: { $0.outputInterface == answer.outputInterface && $0.gateway == answer.gateway }),
            let rule = rules.filter({ $0.action == .toTable && $0.table == answer.table }).min(by: { $0.priority < $1.priority })
        else { return nil }
        return PathOrder.Candidate(rule: rule, route: route, hop: hop, skip: nil)
    }

    /// The route answer a lookup that took this next hop would give.
    static func answer(_ candidate: PathOrder.Candidate) -> RouteAnswer {
        var answer = candidate.route.route
        answer.outputInterface = candidate.hop?.outputInterface
        answer.gateway = candidate.hop?.gateway
        answer.flags.formUnion(candidate.hop?.flags ?? [])
        answer.destination = nil
        return answer
    }
}

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
        let candidates = PathOrder.candidates(rules: rules, routes: routes) { linkDownPolicy($0, family) }
        let inUse = PathOrder.inUse(candidates, answer: try kernel.lookupRoutes(to: [destination], selectors: chosen)[0])
        var choices: [PathChoice] = []
        for (index, candidate) in candidates.enumerated() {
            if let wanted = chosen.outputInterface, candidate.hop?.outputInterface != wanted { continue }
            let route = candidate.route
            let report = try evaluate(destination, answer: .route(Self.answer(candidate)))
            choices.append(PathChoice(
                rulePriority: candidate.rule.priority, ruleSelector: candidate.rule.selectorText, table: route.route.table,
                metric: route.metric, routeType: route.route.type, report: report, skip: candidate.skip, inUse: index == inUse))
        }
        return choices.filter(\.inUse) + choices.filter { !$0.inUse }
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

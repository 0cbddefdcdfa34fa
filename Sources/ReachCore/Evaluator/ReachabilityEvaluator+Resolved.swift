import ReachSystem

extension ReachabilityEvaluator {
    /// A host's report from a lookup already made (`watch` resolves on its own schedule).
    /// A lookup that could not run is a state like any other name that did not resolve.
    public func evaluate(host name: String, outcome: ResolutionOutcome) throws -> ReachabilityReport {
        switch outcome {
        case .resolved(let addresses):
            return ReachabilityReport(subject: .host(name), paths: try paths.evaluate(addresses))
        case .notResolved(let why):
            return ReachabilityReport(subject: .host(name), paths: [], resolutionFailure: why)
        case .failed(let error):
            return ReachabilityReport(subject: .host(name), paths: [], resolutionFailure: error.description)
        }
    }
}

import ReachSystem

/// Evaluates the three subjects over a path evaluator and a resolver.
public struct ReachabilityEvaluator {
    public var paths: PathEvaluator
    public var resolver: HostResolving
    /// Where the user would have "the internet" looked up instead, at most one per family.
    public var references: [IPAddress] = []
    /// `status --all`: the internet's report lists every path out too.
    public var listsAllPaths = false

    public init(paths: PathEvaluator, resolver: HostResolving = SystemHostResolver()) {
        self.paths = paths
        self.resolver = resolver
    }

    /// Where "the internet" is looked up: a global unicast address of each family,
    /// the classic `ip route get 8.8.8.8`. Only the kernel's route table is asked;
    /// no packet is sent. (`0.0.0.0` would not do: Linux answers it as local.)
    public static func internetDestination(_ family: AddressFamily) -> IPAddress {
        // Bytes, not parsed text, and no dictionary: the first Dictionary<AddressFamily, _>
        // costs a conformance scan at start-up, dearer than the lookups themselves.
        switch family {
        case .ipv4: IPAddress(family: .ipv4, bytes: [8, 8, 8, 8])!
        case .ipv6: IPAddress(family: .ipv6, bytes: [0x20, 0x01, 0x48, 0x60, 0x48, 0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0x88, 0x88])!
        }
    }

    /// The user's reference address of this family, else the built-in one.
    public func internetDestination(_ family: AddressFamily) -> IPAddress {
        references.first { $0.family == family } ?? Self.internetDestination(family)
    }

    /// `families` empty means both, and either one will do; both named means both are required.
    public func evaluateInternet(families: Set<AddressFamily>) throws -> ReachabilityReport {
        let evaluated = families.isEmpty ? AddressFamily.allCases : AddressFamily.allCases.filter(families.contains)
        let reports = try evaluated.map { try paths.evaluate(internetDestination($0)) }
        var report = ReachabilityReport(subject: .internet, paths: reports, requiredFamilies: families.count > 1 ? families : [])
        if listsAllPaths { report.allPaths = try evaluated.flatMap { try paths.allPaths(to: internetDestination($0)) } }
        return report
    }

    public func evaluate(address: IPAddress) throws -> ReachabilityReport {
        ReachabilityReport(subject: .address(address), paths: [try paths.evaluate(address)])
    }

    public func evaluate(host name: String, family: AddressFamily?, timeout: TimeSpan) throws -> ReachabilityReport {
        let outcome = try resolver.resolve(name, family: family, timeout: timeout)
        if case .failed(let error) = outcome { throw error }
        return try evaluate(host: name, outcome: outcome)
    }
}

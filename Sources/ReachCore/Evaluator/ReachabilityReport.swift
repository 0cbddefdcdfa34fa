import ReachSystem

/// What `status`, `host` and `addr` evaluate, as one report.
public struct ReachabilityReport: Hashable, Sendable {
    public enum Subject: Hashable, Sendable {
        /// The internet, per address family.
        case internet
        case host(String)
        case address(IPAddress)
    }

    public var subject: Subject
    public var paths: [PathReport]
    /// Set when a host name did not resolve, with the resolver's words.
    public var resolutionFailure: String?
    /// Families that must all be reachable (`-4 -6` together); empty: any one will do.
    public var requiredFamilies: Set<AddressFamily>
    /// `status --all`: every path out, in the kernel's order, the ones in use first; nil when
    /// not asked for.
    public var allPaths: [PathChoice]?
    /// The probes' verdict, when probes were asked for.
    public private(set) var connectivity: ConnectivityReport?

    public init(subject: Subject, paths: [PathReport], resolutionFailure: String? = nil, requiredFamilies: Set<AddressFamily> = []) {
        self.subject = subject
        self.paths = paths
        self.resolutionFailure = resolutionFailure
        self.requiredFamilies = requiredFamilies
    }

    public var isReachable: Bool {
        guard resolutionFailure == nil else { return false }
        if requiredFamilies.isEmpty { return paths.contains(where: \.isReachable) }
        return requiredFamilies.allSatisfy { family in paths.contains { $0.family == family && $0.isReachable } }
    }

    /// Adds the probes' verdict. A portal means the user must act: InterventionRequired
    /// on every path that the kernel would use.
    public mutating func attach(_ connectivity: ConnectivityReport) {
        self.connectivity = connectivity
        guard connectivity.state == .portal else { return }
        for index in paths.indices where paths[index].isReachable {
            paths[index].flags.insert(.interventionRequired)
        }
    }

    /// The reason the whole subject is not reachable; nil when it is.
    public var reason: UnreachableReason? {
        if resolutionFailure != nil { return .nameNotResolved }
        if isReachable { return nil }
        return paths.first(where: { !$0.isReachable })?.reason ?? .noRoute
    }
}

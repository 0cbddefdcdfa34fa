import ReachSystem

/// getaddrinfo on a thread that can be abandoned, so the timeout holds even when
/// the resolver never answers.
public struct SystemHostResolver: HostResolving {
    public init() {}

    public func resolve(_ name: String, family: AddressFamily?, timeout: TimeSpan) throws -> ResolutionOutcome {
        let lookup = try HostResolution(name: name, family: family)
        return try lookup.wait(timeout: timeout) ?? Self.noAnswer(within: timeout)
    }

    /// Concurrently, on HostResolutionPool's few threads, each lookup bounded from its start.
    public func resolve(all names: [String], family: AddressFamily?, timeout: TimeSpan) throws -> [ResolutionOutcome] {
        try HostResolutionPool.resolve(names, family: family, timeout: timeout).map {
            $0 ?? Self.noAnswer(within: timeout)
        }
    }

    static func noAnswer(within timeout: TimeSpan) -> ResolutionOutcome {
        .notResolved("no answer within \(timeout.secondsText) s")
    }
}

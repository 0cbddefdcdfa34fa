import ReachSystem

/// getaddrinfo on a thread that can be abandoned, so the timeout holds even when
/// the resolver never answers.
public struct SystemHostResolver: HostResolving {
    public init() {}

    public func resolve(_ name: String, family: AddressFamily?, timeoutMilliseconds: Int32) throws -> ResolutionOutcome {
        let lookup = try HostResolution(name: name, family: family)
        return try lookup.wait(timeoutMilliseconds: timeoutMilliseconds) ?? Self.noAnswer(within: timeoutMilliseconds)
    }

    /// Concurrently, on HostResolutionPool's few threads, each lookup bounded from its start.
    public func resolve(all names: [String], family: AddressFamily?, timeoutMilliseconds: Int32) throws -> [ResolutionOutcome] {
        try HostResolutionPool.resolve(names, family: family, timeoutMilliseconds: timeoutMilliseconds).map {
            $0 ?? Self.noAnswer(within: timeoutMilliseconds)
        }
    }

    static func noAnswer(within timeoutMilliseconds: Int32) -> ResolutionOutcome {
        .notResolved("no answer within \(TimeSpan(milliseconds: Int64(timeoutMilliseconds)).seconds) s")
    }
}

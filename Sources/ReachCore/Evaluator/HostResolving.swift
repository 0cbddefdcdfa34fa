import ReachSystem

/// Resolves names to addresses within a time bound.
public protocol HostResolving {
    func resolve(_ name: String, family: AddressFamily?, timeout: TimeSpan) throws -> ResolutionOutcome
    /// Every name, in order, each lookup bounded by `timeout`: one name that
    /// hangs must not delay the others' answers.
    func resolve(all names: [String], family: AddressFamily?, timeout: TimeSpan) throws -> [ResolutionOutcome]
}

extension HostResolving {
    /// One after another: for resolvers that answer at once (tests' fakes).
    public func resolve(all names: [String], family: AddressFamily?, timeout: TimeSpan) throws -> [ResolutionOutcome] {
        try names.map { try resolve($0, family: family, timeout: timeout) }
    }

    /// Where a host argument leads: the address itself when it is a literal (its zone's
    /// interface looked up), else what `name` resolves to. `ping`, the probes and `Pinger`
    /// take the first address, as iputils ping does.
    public func addresses(of host: String, family: AddressFamily?, timeout: TimeSpan) throws -> ResolutionOutcome {
        // Not an address literal (or one whose zone is unknown): then it is a name, and the resolver says why not.
        if let literal = try? IPAddress.parse(host).resolvingZone() { return .resolved([literal]) }
        return try resolve(host, family: family, timeout: timeout)
    }
}

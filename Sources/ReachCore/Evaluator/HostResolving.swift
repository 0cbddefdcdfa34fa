import ReachSystem

/// Resolves names to addresses within a time bound.
public protocol HostResolving {
    func resolve(_ name: String, family: AddressFamily?, timeoutMilliseconds: Int32) throws -> ResolutionOutcome
}

extension HostResolving {
    /// Where a host argument leads: the address itself when it is a literal (its zone's
    /// interface looked up), else what `name` resolves to. `ping`, the probes and `Pinger`
    /// take the first address, as iputils ping does.
    public func addresses(of host: String, family: AddressFamily?, timeoutMilliseconds: Int32) throws -> ResolutionOutcome {
        if let literal = try? IPAddress.parse(host).resolvingZone() { return .resolved([literal]) }
        return try resolve(host, family: family, timeoutMilliseconds: timeoutMilliseconds)
    }
}

/// getaddrinfo on a thread that can be abandoned, so the timeout holds even when
/// the resolver never answers.
public struct SystemHostResolver: HostResolving {
    public init() {}

    public func resolve(_ name: String, family: AddressFamily?, timeoutMilliseconds: Int32) throws -> ResolutionOutcome {
        let lookup = try HostResolution(name: name, family: family)
        return try lookup.wait(timeoutMilliseconds: timeoutMilliseconds)
            ?? .notResolved("no answer within \(TimeSpan(milliseconds: Int64(timeoutMilliseconds)).seconds) s")
    }
}

/// A target of one family where the other was asked for (-4 or -6).
public struct FamilyMismatch: Error, Equatable, Sendable, CustomStringConvertible {
    /// The target as the user wrote it.
    public var target: String
    public var required: AddressFamily

    public init(target: String, required: AddressFamily) {
        self.target = target
        self.required = required
    }

    public var description: String { "\(target) is not an \(required.label) address" }

    /// Throws when `address` is not of `family`; nil asks for no family in particular.
    public static func check(_ address: IPAddress, against family: AddressFamily?, target: String) throws(FamilyMismatch) {
        if let family, family != address.family { throw FamilyMismatch(target: target, required: family) }
    }
}

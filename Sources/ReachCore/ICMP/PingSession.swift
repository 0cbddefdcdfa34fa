import ReachSystem

/// The checks and steps of a `reach ping` run, one target or many, written once: the
/// command line builds a session from its parsed options, has it check and resolve the
/// targets and limit the process's privileges, runs the engine through it, and renders what
/// comes back. The words of a refusal are here; the remedies (setcap, ping_group_range)
/// and every line of output are the command line's.
public struct PingSession {
    /// A run refused before it starts: the user's input (exit 64) or a permission (exit 77).
    public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        public enum Kind: Equatable, Sendable { case badInput, notPermitted }
        public var kind: Kind
        public var description: String
    }

    /// A target once resolved: its address, or why its name did not resolve.
    public enum Resolution: Equatable, Sendable {
        case address(IPAddress)
        case unresolved(why: String)
    }

    /// How long names may take to resolve: one ping's lookup, or all of a run's together.
    public static let resolveTimeout = TimeSpan.seconds(10)
    /// iputils MINUSERINTERVAL (ping/ping_common.h): 2 ms for users without CAP_NET_RAW.
    public static let minimumUserInterval = TimeSpan.milliseconds(2)

    /// The options a refusal names, as the command line spells them (from their declarations).
    public struct OptionNames: Sendable {
        /// `-4` and `-6`.
        public var ipv4: String
        public var ipv6: String
        /// `-i`.
        public var interval: String

        public init(ipv4: String, ipv6: String, interval: String) {
            self.ipv4 = ipv4
            self.ipv6 = ipv6
            self.interval = interval
        }
    }

    /// -4 and -6 as given.
    public var ipv4: Bool
    public var ipv6: Bool
    /// iputils -f.
    public var flood: Bool
    let options: OptionNames
    let resolver: HostResolving

    public init(ipv4: Bool, ipv6: Bool, flood: Bool = false, options: OptionNames, resolver: HostResolving = SystemHostResolver()) {
        self.ipv4 = ipv4
        self.ipv6 = ipv6
        self.flood = flood
        self.options = options
        self.resolver = resolver
    }

    /// -4 or -6, refusing both.
    public func family() throws(Refusal) -> AddressFamily? {
        if ipv4 && ipv6 { throw Refusal(kind: .badInput, description: "\(options.ipv4) and \(options.ipv6) cannot be combined") }
        return ipv4 ? .ipv4 : ipv6 ? .ipv6 : nil
    }

    /// Keeps only CAP_NET_RAW (iputils ping_common.c) and refuses what needs it without it:
    /// an interval below MINUSERINTERVAL, or with iputils' rules a flood.
    public func limitPrivileges(interval: TimeSpan, rules: PingConfiguration.Rules) throws {
        try Capabilities.limitToNetRaw()
        let floods = rules == .iputils && flood
        guard !Capabilities.netRawPermitted && (floods || interval < Self.minimumUserInterval) else { return }
        let below = "use \(options.interval) below \(Self.minimumUserInterval.secondsText) s"
        let refused = rules == .iputils ? "cannot flood or " + below : "cannot " + below
        throw Refusal(
            kind: .notPermitted,
            description: refused + ": CAP_NET_RAW is not permitted (setcap cap_net_raw+p on the reach binary, or run as root)")
    }

    /// Each target checked before anything is resolved or sent: its literal, of the family
    /// asked, or nil for a name (its zone and its words checked).
    public func literals(_ texts: [String]) throws -> [IPAddress?] {
        let family = try family()
        var literals: [IPAddress?] = []
        literals.reserveCapacity(texts.count)
        for text in texts {
            if let literal = try? IPAddress.parse(text).resolvingZone() {
                try FamilyMismatch.check(literal, against: family, target: text)
                literals.append(literal)
            } else {
                try TargetText.checkName(text)
                literals.append(nil)
            }
        }
        return literals
    }

    /// One host, as iputils takes it: its first address, within the bound. A system failure
    /// of the lookup is thrown.
    public func resolve(_ host: String) throws -> Resolution {
        let family = try family()
        if (try? IPAddress.parse(host).resolvingZone()) == nil { try TargetText.checkName(host) }
        switch try resolver.addresses(of: host, family: family, timeout: Self.resolveTimeout) {
        case .resolved(let addresses):
            try FamilyMismatch.check(addresses[0], against: family, target: host)
            return .address(addresses[0])
        case .notResolved(let why):
            return .unresolved(why: why)
        case .failed(let error):
            throw error
        }
    }

    /// Many targets, given with their `literals`: the names resolved together (a pool of
    /// lookups), bounded as one ping's lookup is; each target's first address, in order. A
    /// name whose lookup failed is unresolved, as fping leaves it out.
    public func resolve(_ texts: [String], literals: [IPAddress?]) throws -> [Resolution] {
        let family = try family()
        let names = zip(texts, literals).compactMap { $1 == nil ? $0 : nil }
        var outcomes = try resolver.resolve(all: names, family: family, timeout: Self.resolveTimeout)[...]
        var resolutions: [Resolution] = []
        resolutions.reserveCapacity(texts.count)
        for (text, literal) in zip(texts, literals) {
            if let literal {
                resolutions.append(.address(literal))
                continue
            }
            switch outcomes.removeFirst() {
            case .resolved(let resolved):
                try FamilyMismatch.check(resolved[0], against: family, target: text)
                resolutions.append(.address(resolved[0]))
            case .notResolved(let why):
                resolutions.append(.unresolved(why: why))
            case .failed(let error):
                resolutions.append(.unresolved(why: error.description))
            }
        }
        return resolutions
    }

    /// Runs the loop to its end. A failure of the system in the middle of the run (a socket
    /// that stops working) ends it: the one line that says so, for exit 71; nil when the run
    /// ended by its own rules.
    public func run(
        _ loop: inout PingLoop, reportEvery: TimeSpan? = nil, report: (PingEngine) -> Void = { _ in },
        _ handle: (PingEvent, PingEngine) -> Void
    ) -> String? {
        do {
            try loop.run(reportEvery: reportEvery, report: report, handle)
            return nil
        } catch {
            return "system failure: \(error)"
        }
    }
}

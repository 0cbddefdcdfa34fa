import ReachSystem

/// The outgoing link of a path, as reported.
public struct LinkReport: Hashable, Sendable {
    public var name: String
    public var index: UInt32
    public var kind: LinkKind
    public var operState: OperState
    /// For a cellular link: what ModemManager says of the modem that claims it (all nil
    /// when no modem does); nil for a link that is not cellular.
    public var cellular: CellularFacts?

    public init(name: String, index: UInt32, kind: LinkKind, operState: OperState, cellular: CellularFacts? = nil) {
        self.name = name
        self.index = index
        self.kind = kind
        self.operState = operState
        self.cellular = cellular
    }
}

/// The evaluation of one destination address: flags, verdict and the path the kernel picked.
public struct PathReport: Hashable, Sendable {
    public var destination: IPAddress
    public var flags: ReachabilityFlags
    /// nil when reachable.
    public var reason: UnreachableReason?
    public var link: LinkReport?
    /// nil when the destination is directly connected.
    public var gateway: IPAddress?
    public var source: IPAddress?
    /// For a kernel tunnel (vxlan, gre, ...): the link its packets leave through.
    public var underlyingLink: LinkReport?
    /// Costly by the byte: over a cellular link, or one NetworkManager says is metered.
    public var expensive: Bool

    public init(destination: IPAddress, flags: ReachabilityFlags, reason: UnreachableReason?,
                link: LinkReport? = nil, gateway: IPAddress? = nil, source: IPAddress? = nil,
                underlyingLink: LinkReport? = nil, expensive: Bool = false) {
        self.destination = destination
        self.flags = flags
        self.reason = reason
        self.link = link
        self.gateway = gateway
        self.source = source
        self.underlyingLink = underlyingLink
        self.expensive = expensive
    }

    public var family: AddressFamily { destination.family }
    public var isReachable: Bool { reason == nil }
}

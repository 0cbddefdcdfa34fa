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

/// A destination that is not one host: the kernel's route type says the packet goes to
/// every host of a subnet, or to a group (RTN_BROADCAST, RTN_MULTICAST in
/// include/uapi/linux/rtnetlink.h). Whether anyone answers is up to the hosts
/// (net.ipv4.icmp_echo_ignore_broadcasts).
public enum PathDelivery: String, Hashable, Sendable {
    case broadcast
    case multicast

    /// The route type's delivery; nil for one host (unicast, local, anycast).
    public init?(routeType: RouteType) {
        switch routeType {
        case .broadcast: self = .broadcast
        case .multicast: self = .multicast
        default: return nil
        }
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
    /// A broadcast or multicast destination; nil for one host.
    public var delivery: PathDelivery?

    public init(destination: IPAddress, flags: ReachabilityFlags, reason: UnreachableReason?,
                link: LinkReport? = nil, gateway: IPAddress? = nil, source: IPAddress? = nil,
                underlyingLink: LinkReport? = nil, expensive: Bool = false, delivery: PathDelivery? = nil) {
        self.destination = destination
        self.flags = flags
        self.reason = reason
        self.link = link
        self.gateway = gateway
        self.source = source
        self.underlyingLink = underlyingLink
        self.expensive = expensive
        self.delivery = delivery
    }

    public var family: AddressFamily { destination.family }
    public var isReachable: Bool { reason == nil }
}

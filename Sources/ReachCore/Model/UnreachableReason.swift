import ReachSystem

/// Why a path is not reachable: the closed list of reasons. `rawValue` is the JSON form.
public enum UnreachableReason: String, Hashable, Sendable, CaseIterable {
    /// No route matched (ENETUNREACH; a `throw` route answers the same).
    case noRoute = "no_route"
    /// An `unreachable` route (EHOSTUNREACH).
    case unreachableRoute = "unreachable_route"
    /// A `blackhole` route (EINVAL).
    case blackholeRoute = "blackhole_route"
    /// A `prohibit` route (EACCES).
    case prohibitedRoute = "prohibited_route"
    /// The outgoing link is administratively down, or gone.
    case linkDown = "link_down"
    /// The outgoing link is up but has no carrier (the kernel keeps the route, `linkdown`).
    case noCarrier = "no_carrier"
    /// The outgoing link is dormant (802.1X / WPA waiting).
    case linkDormant = "link_dormant"
    /// The path is cellular and cellular was refused (`--no-cellular`).
    case cellularRefused = "cellular_refused"
    /// The path is expensive (cellular, or metered) and expensive paths were refused (`--no-expensive`).
    case expensiveRefused = "expensive_refused"
    /// The host name did not resolve, or the resolver did not answer in time.
    case nameNotResolved = "name_not_resolved"
    /// The path leaves through another link than the one asked for (`watch --interface`).
    case otherInterface = "other_interface"

    /// The route type behind an errno the kernel's route lookup gives (fib_props in
    /// net/ipv4/fib_semantics.c; ip6_rt_type_to_error in net/ipv6/route.c): to RTM_GETROUTE,
    /// and at once to a sendto or a connect, before anything is sent. nil for any other errno
    /// (a firewall's EPERM is no route type).
    public init?(routeRefusal errno: Errno) {
        switch errno {
        case .networkUnreachable: self = .noRoute
        case .hostUnreachable: self = .unreachableRoute
        case .invalidArgument: self = .blackholeRoute
        case .permissionDenied: self = .prohibitedRoute
        default: return nil
        }
    }

    /// strerror's text for a refused send or connect, and the route type behind it when
    /// there is one: "Invalid argument (blackhole route)".
    public static func describe(refusal errno: Errno) -> String {
        guard let reason = UnreachableReason(routeRefusal: errno) else { return errno.description }
        return "\(errno) (\(reason.phrase))"
    }

    /// How text output says it.
    public var phrase: String {
        switch self {
        case .noRoute: "no route"
        case .unreachableRoute: "unreachable route"
        case .blackholeRoute: "blackhole route"
        case .prohibitedRoute: "prohibited route"
        case .linkDown: "link down"
        case .noCarrier: "no carrier"
        case .linkDormant: "link dormant"
        case .cellularRefused: "cellular refused"
        case .expensiveRefused: "expensive refused"
        case .nameNotResolved: "name not resolved"
        case .otherInterface: "not the requested interface"
        }
    }
}

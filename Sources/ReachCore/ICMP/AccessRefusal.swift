import ReachSystem

/// What an EACCES from a send toward one address means. The kernel gives it for a prohibit
/// route (fib_props in net/ipv4/fib_semantics.c, ip6_rt_type_to_error in net/ipv6/route.c)
/// and for a broadcast address from a socket without SO_BROADCAST (raw_sendmsg in
/// net/ipv4/raw.c, __ip4_datagram_connect in net/ipv4/datagram.c); iputils cannot tell them
/// apart ("Do you want to ping broadcast? Then -b. If not, check your local firewall
/// rules"). A UDP connect(2), with and without SO_BROADCAST, asks the same route lookup and
/// sends nothing.
public enum AccessRefusal: Equatable, Sendable {
    /// A broadcast address: refused without SO_BROADCAST, taken with it.
    case broadcast
    /// A prohibit route: refused either way.
    case prohibitedRoute
    /// The route takes the send: the refusal came from elsewhere (a security module).
    case unexplained

    public init(toward destination: IPAddress, interface: String? = nil) {
        guard ICMPSocketOptions.connectFailure(toward: destination, interface: interface, broadcast: false) == .permissionDenied
        else {
            self = .unexplained
            return
        }
        switch ICMPSocketOptions.connectFailure(toward: destination, interface: interface, broadcast: true) {
        case nil: self = .broadcast
        case .permissionDenied?: self = .prohibitedRoute
        default: self = .unexplained
        }
    }

    /// The route type behind a refused send toward `destination`, the refusal's errno
    /// checked against the route when it is EACCES.
    public static func reason(for errno: Errno, toward destination: IPAddress, interface: String? = nil) -> UnreachableReason? {
        guard errno == .permissionDenied else { return UnreachableReason(routeRefusal: errno) }
        return AccessRefusal(toward: destination, interface: interface) == .prohibitedRoute ? .prohibitedRoute : nil
    }

    /// strerror's text for a refused send, with what the route says of it: "Permission
    /// denied (prohibited route)", "Permission denied (broadcast address: -b pings it)" where
    /// the caller has an option that allows a broadcast, spelled `broadcastOption`.
    public static func describe(
        _ errno: Errno, toward destination: IPAddress, interface: String? = nil, broadcastOption: String?
    ) -> String {
        guard errno == .permissionDenied else { return UnreachableReason.describe(refusal: errno) }
        switch AccessRefusal(toward: destination, interface: interface) {
        case .broadcast: return "\(errno) (broadcast address" + (broadcastOption.map { ": \($0) pings it" } ?? "") + ")"
        case .prohibitedRoute: return "\(errno) (\(UnreachableReason.prohibitedRoute.phrase))"
        case .unexplained: return errno.description
        }
    }
}

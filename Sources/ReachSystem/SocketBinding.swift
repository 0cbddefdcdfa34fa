/// The local end a probe's socket is bound to before it connects or sends: a source address
/// (bind(2)) and a link (SO_BINDTODEVICE), each nil for the kernel's choice. Bound to a
/// link and not to an address, the kernel picks the source by the route lookup through that
/// link (ip_route_connect in include/net/route.h passes the socket's bound device as the
/// output interface), as `ip route get ... oif` does.
public struct SocketBinding: Hashable, Sendable {
    public var address: IPAddress?
    public var interface: String?

    public init(address: IPAddress? = nil, interface: String? = nil) {
        self.address = address
        self.interface = interface
    }

    /// The kernel's choice of both.
    public static let unbound = SocketBinding()

    /// What the kernel refused, before any packet left.
    public enum Refusal: Error, Equatable, Sendable {
        /// bind(2) refused the address (EADDRNOTAVAIL: not one of this host's; EINVAL:
        /// another family's).
        case address(Errno)
        /// SO_BINDTODEVICE refused the link (ENODEV: there is no such link).
        case interface(Errno)
    }
}

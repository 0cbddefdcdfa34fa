import ReachSystem

/// A TCP connect within a deadline: the one TCP probe of `reach status --probe`,
/// `reach watch --probe` and the exporter's tcp module, and the connection under their
/// HTTP GET (`HTTPProbe`).
public enum TCPProbe {
    /// Why no connection came: one line for the command line's verdict, and the route type
    /// for the exporter's reach_probe_route_refused.
    public struct Failure: Error, Equatable, Sendable {
        /// What answered, or did not: the exporter names it as a failure reason.
        public enum Kind: Sendable {
            /// A reset to the SYN (ECONNREFUSED).
            case refused
            /// An ICMP error from the network (EHOSTUNREACH, ENETUNREACH after the SYN left).
            case unreachable
            /// The kernel refused the destination by its route: `routeRefusal` says which.
            case routeRefused
            case timedOut
            /// The source address asked for could not be bound (not one of this host's).
            case sourceRefused
            /// The link asked for could not be bound to (SO_BINDTODEVICE: no such link).
            case interfaceRefused
        }

        public var kind: Kind
        /// "connection refused by 192.0.2.1 port 80", "timed out connecting to ...".
        public var detail: String
        /// The route type behind the kernel's refusal of the connect, before any packet
        /// left; nil when the answer came from the network or nothing came.
        public var routeRefusal: UnreachableReason?

        public init(_ kind: Kind, detail: String, routeRefusal: UnreachableReason? = nil) {
            self.kind = kind
            self.detail = detail
            self.routeRefusal = routeRefusal
        }
    }

    /// A connection to `address` port `port` (from `source`'s address and link, when given),
    /// or the failure that says why there is none. A failing system call that says nothing
    /// about the network is thrown.
    public static func connect(
        to address: IPAddress, port: UInt16, from source: SocketBinding = .unbound, deadline: MonotonicInstant
    ) throws -> Result<TCPConnection, Failure> {
        result(of: try TCPConnection.connect(to: address, port: port, from: source, deadline: deadline), address: address, port: port)
    }

    static func result(of outcome: TCPConnection.ConnectOutcome, address: IPAddress, port: UInt16) -> Result<TCPConnection, Failure> {
        switch outcome {
        case .connected(let open): return .success(open)
        case .refused: return .failure(Failure(.refused, detail: "connection refused by \(address) port \(port)"))
        case .unreachable(let errno): return .failure(Failure(.unreachable, detail: "\(address) port \(port): \(errno)"))
        case .routeRefused(let errno):
            return .failure(Failure(
                .routeRefused, detail: "\(address) port \(port): \(UnreachableReason.describe(refusal: errno))",
                routeRefusal: UnreachableReason(routeRefusal: errno)))
        case .timedOut: return .failure(Failure(.timedOut, detail: "timed out connecting to \(address) port \(port)"))
        case .sourceRefused(let refusal): return .failure(Failure(refusal))
        }
    }
}

extension TCPProbe.Failure {
    /// The local end the kernel refused: the source address, or the link.
    public init(_ refusal: SocketBinding.Refusal) {
        switch refusal {
        case .address(let errno): self.init(.sourceRefused, detail: "cannot send from the source address: \(errno)")
        case .interface(let errno): self.init(.interfaceRefused, detail: "cannot send through the interface: \(errno)")
        }
    }
}

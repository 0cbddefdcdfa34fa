import ReachSystem

/// Sends and receives whole netlink datagrams: `NetlinkSocket` (ReachSystem) in a real
/// run; tests replay canned kernel replies through a fake.
public protocol NetlinkTransport: AnyObject {
    func send(_ datagram: [UInt8]) throws
    /// The next datagram from the kernel (blocking).
    func receive() throws -> [UInt8]
}

extension NetlinkSocket: NetlinkTransport {}

/// The kernel facts the evaluator asks for: a route lookup and a link's state.
public protocol KernelRoutingFacts: AnyObject {
    /// The route the kernel would pick for `destination` (no packet is sent).
    func lookupRoute(to destination: IPAddress) throws -> RouteLookupResult
    /// The link with this index; nil when it does not exist (any more).
    func link(index: UInt32) throws -> LinkFacts?
}

/// The kernel's answer to a route lookup: a route, or a verdict errno (fib_props in net/ipv4/fib_semantics.c).
public enum RouteLookupResult: Equatable, Sendable {
    case route(RouteAnswer)
    case rejected(Errno)
}

/// A netlink error the kernel returned for a request that was not a verdict.
public struct NetlinkRequestError: Error, Equatable, CustomStringConvertible {
    public var request: String
    public var errno: Errno
    public var description: String { "\(request): \(errno)" }
}

/// rtnetlink requests over a transport: RTM_GETROUTE and RTM_GETLINK.
public final class RouteNetlinkClient: KernelRoutingFacts {
    private let transport: NetlinkTransport
    private var nextSequence: UInt32 = 1

    public init(transport: NetlinkTransport) {
        self.transport = transport
    }

    public func lookupRoute(to destination: IPAddress) throws -> RouteLookupResult {
        let zone = destination.scopeID == 0 ? nil : destination.scopeID
        let payload = RouteMessage.lookupPayload(destination: destination, outputInterface: zone)
        switch try request(.getRoute, payload: payload, expecting: .newRoute) {
        case .message(let message):
            return .route(try RouteMessage.decode(message.payload))
        case .error(let errno):
            return .rejected(errno)
        }
    }

    public func link(index: UInt32) throws -> LinkFacts? {
        switch try request(.getLink, payload: LinkMessage.requestPayload(index: index), expecting: .newLink) {
        case .message(let message):
            return try LinkMessage.decode(message.payload)
        case .error(let errno) where errno == .noDevice:
            return nil
        case .error(let errno):
            throw NetlinkRequestError(request: "RTM_GETLINK", errno: errno)
        }
    }

    private enum Reply {
        case message(NetlinkMessage)
        case error(Errno)
    }

    /// Sends one request and reads until the reply with its sequence number,
    /// skipping anything else (stray multicast, replies to abandoned requests).
    private func request(_ type: NetlinkMessageType, payload: [UInt8], expecting: NetlinkMessageType) throws -> Reply {
        let sequence = nextSequence
        nextSequence &+= 1
        let message = NetlinkMessage(type: type, flags: .request, sequence: sequence, payload: payload[...])
        try transport.send(message.encoded())
        while true {
            for reply in try NetlinkMessage.parseAll(try transport.receive()) where reply.sequence == sequence {
                switch reply.type {
                case .error:
                    let code = try reply.errorCode()
                    if code == 0 { continue } // an ACK; the answer follows
                    return .error(Errno(rawValue: code))
                case expecting:
                    return .message(reply)
                default:
                    continue
                }
            }
        }
    }
}

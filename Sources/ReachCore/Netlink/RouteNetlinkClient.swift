import ReachSystem

/// Sends and receives whole netlink datagrams: `NetlinkSocket` (ReachSystem) in a real
/// run; tests replay canned kernel replies through a fake.
public protocol NetlinkTransport: AnyObject {
    func send(_ datagram: [UInt8]) throws
    /// The next datagram from the kernel (blocking).
    func receive() throws -> [UInt8]
    /// The datagrams queued, at least one when `waiting` (it blocks for the first); none
    /// queued and not waiting: empty. They may be slices of one buffer that the next call
    /// fills again: a caller that drops them first lets it be reused in place.
    func receiveBatch(waiting: Bool) throws -> [ArraySlice<UInt8>]
}

extension NetlinkTransport {
    /// A datagram at a time: for transports that cannot take more in one call.
    public func receiveBatch(waiting: Bool) throws -> [ArraySlice<UInt8>] {
        waiting ? [try receive()[...]] : []
    }
}

extension NetlinkSocket: NetlinkTransport {}

/// The kernel facts the evaluator asks for: route lookups and a link's state.
public protocol KernelRoutingFacts: AnyObject {
    /// The route the kernel would pick for each destination, in order (no packet is sent).
    func lookupRoutes(to destinations: [IPAddress], selectors: RouteSelectors) throws -> [RouteLookupResult]
    /// The link with this index; nil when it does not exist (any more).
    func link(index: UInt32) throws -> LinkFacts?
}

extension KernelRoutingFacts {
    /// The route the kernel would pick for `destination` by its address alone.
    public func lookupRoute(to destination: IPAddress) throws -> RouteLookupResult {
        try lookupRoutes(to: [destination], selectors: .none)[0]
    }
}

/// The kernel's rules and routing tables, dumped whole: every path out, not only the best one.
public protocol RoutingTableSource: AnyObject {
    /// `ip rule show` of one family.
    func rules(family: AddressFamily) throws -> [PolicyRule]
    /// `ip route show table all` of one family.
    func routes(family: AddressFamily) throws -> [TableRoute]
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

/// rtnetlink requests over a transport: RTM_GETROUTE and RTM_GETLINK, and the dumps of the
/// rules and tables (RTM_GETRULE, RTM_GETROUTE with NLM_F_DUMP).
public final class RouteNetlinkClient: KernelRoutingFacts {
    private let transport: NetlinkTransport
    private var nextSequence: UInt32 = 1
    /// The gateway and source of the last route answer, handed on to the next that repeats them.
    /// Unchecked: a client is used by one thread, and the check cost two calls per answer.
    @exclusivity(unchecked) private var repeated = RepeatedAddresses()

    public init(transport: NetlinkTransport) {
        self.transport = transport
    }

    /// Requests in flight at most: their answers must fit the socket's receive buffer
    /// together (an answer takes about 1 KiB of it; rmem_default is 208 KiB), and a batch
    /// goes to the kernel in one send.
    static let window = 64

    /// The lookups pipelined, as `ip -batch` cannot: a window of requests in one datagram
    /// (the kernel takes each message of it in turn: netlink_rcv_skb in
    /// net/netlink/af_netlink.c), answers taken many a call and matched by sequence number.
    /// Should the kernel drop answers for want of room (ENOBUFS, netlink(7)), what is queued
    /// is read, and the unanswered requests go again in a smaller window.
    public func lookupRoutes(to destinations: [IPAddress], selectors: RouteSelectors) throws -> [RouteLookupResult] {
        var results = [RouteLookupResult?](repeating: nil, count: destinations.count)
        var window = Self.window
        var start = 0
        while start < destinations.count {
            let end = min(start + window, destinations.count)
            var pending = Array(start..<end)
            while !pending.isEmpty {
                if try exchange(pending, destinations, selectors, into: &results) { break }
                window = max(1, window / 2)
                pending = pending.filter { results[$0] == nil }
            }
            start = end
        }
        // Moved out, not copied: a copy retains each answer's addresses once more.
        var answers: [RouteLookupResult] = []
        answers.reserveCapacity(results.count)
        for index in results.indices { answers.append(results[index].take()!) }
        return answers
    }

    /// Sends a request for each of `pending` in one datagram and reads their answers; false
    /// when the kernel dropped some (what did arrive is in `results`).
    private func exchange(_ pending: [Int], _ destinations: [IPAddress], _ selectors: RouteSelectors,
                          into results: inout [RouteLookupResult?]) throws -> Bool {
        let first = nextSequence
        var datagram: [UInt8] = []
        datagram.reserveCapacity(pending.count * 64)
        for (offset, index) in pending.enumerated() {
            let destination = destinations[index]
            var chosen = selectors
            if destination.scopeID != 0 { chosen.outputInterface = destination.scopeID }
            NetlinkMessage.append(type: .getRoute, flags: .request, sequence: first &+ UInt32(offset), to: &datagram) {
                RouteMessage.appendLookupPayload(destination: destination, selectors: chosen, to: &$0)
            }
        }
        nextSequence = first &+ UInt32(pending.count)
        try transport.send(datagram)
        var unanswered = pending.count
        while unanswered > 0 {
            let datagrams: [ArraySlice<UInt8>]
            do {
                datagrams = try transport.receiveBatch(waiting: true)
            } catch let error as SystemCallError where error.errno == .noBufferSpace {
                try drain(first, pending, destinations, into: &results)
                return false
            }
            for datagram in datagrams {
                unanswered -= try take(datagram, first, pending, destinations, into: &results)
            }
        }
        return true
    }

    /// Reads what is queued without waiting: the answers that did arrive before an overrun.
    private func drain(_ first: UInt32, _ pending: [Int], _ destinations: [IPAddress], into results: inout [RouteLookupResult?]) throws {
        while true {
            let datagrams = try transport.receiveBatch(waiting: false)
            if datagrams.isEmpty { return }
            // Late answers only fill `results`; whether a batch was complete matters only while waiting.
            for datagram in datagrams { _ = try take(datagram, first, pending, destinations, into: &results) }
        }
    }

    /// Files the answers a datagram holds under their requests; how many it answered.
    private func take(_ datagram: ArraySlice<UInt8>, _ first: UInt32, _ pending: [Int], _ destinations: [IPAddress],
                      into results: inout [RouteLookupResult?]) throws -> Int {
        var answered = 0
        try NetlinkMessage.forEach(in: datagram) { reply in
            let offset = Int(reply.sequence &- first)
            // Anything else (a stray message, an answer to an abandoned request) is skipped.
            guard reply.sequence &- first < UInt32(pending.count), results[pending[offset]] == nil else { return }
            switch reply.type {
            case .error:
                let code = try reply.errorCode()
                if code == 0 { return } // an ACK; the answer follows
                results[pending[offset]] = .rejected(Errno(rawValue: code))
            case .newRoute:
                repeated.asked = destinations[pending[offset]]
                results[pending[offset]] = .route(try RouteMessage.decode(reply.payload, reusing: &repeated))
            default:
                return
            }
            answered += 1
        }
        return answered
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

    /// How often a dump the kernel marks interrupted is asked again before it is given up.
    static let dumpAttempts = 5

    /// A dump (NLM_F_DUMP): every message of type `expecting` up to NLMSG_DONE, over as many
    /// datagrams as the kernel needs. A dump marked NLM_F_DUMP_INTR (the tables changed while
    /// it was read: netlink(7)) is asked again.
    func dump(_ type: NetlinkMessageType, payload: [UInt8], expecting: NetlinkMessageType, named name: String) throws -> [NetlinkMessage] {
        for _ in 0..<Self.dumpAttempts {
            if let messages = try dumpOnce(type, payload: payload, expecting: expecting, named: name) { return messages }
        }
        throw NetlinkRequestError(request: name, errno: .interrupted)
    }

    /// One dump; nil when the kernel marked it interrupted.
    private func dumpOnce(_ type: NetlinkMessageType, payload: [UInt8], expecting: NetlinkMessageType,
                          named name: String) throws -> [NetlinkMessage]? {
        let sequence = nextSequence
        nextSequence &+= 1
        try transport.send(NetlinkMessage(type: type, flags: [.request, .dump], sequence: sequence, payload: payload[...]).encoded())
        var messages: [NetlinkMessage] = []
        var interrupted = false
        while true {
            for reply in try NetlinkMessage.parseAll(try transport.receive()) where reply.sequence == sequence {
                if reply.flags.contains(.dumpInterrupted) { interrupted = true }
                switch reply.type {
                case .done:
                    return interrupted ? nil : messages
                case .error:
                    let code = try reply.errorCode()
                    if code != 0 { throw NetlinkRequestError(request: name, errno: Errno(rawValue: code)) }
                case expecting:
                    messages.append(reply)
                default:
                    continue
                }
            }
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

extension RouteNetlinkClient: RoutingTableSource {
    /// `ip rule show`.
    public func rules(family: AddressFamily) throws -> [PolicyRule] {
        try dump(.getRule, payload: RuleMessage.dumpPayload(family: family), expecting: .newRule, named: "RTM_GETRULE dump", of: family,
                 decode: RuleMessage.decode)
    }

    /// `ip route show table all`.
    public func routes(family: AddressFamily) throws -> [TableRoute] {
        try dump(.getRoute, payload: RouteMessage.dumpPayload(family: family), expecting: .newRoute, named: "RTM_GETROUTE dump",
                 of: family, decode: RouteMessage.decodeTableRoute)
    }

    /// A dump's messages of `family`, decoded. A kernel without the family answers with every
    /// family's (rtnl_dump_all in net/core/rtnetlink.c): the first payload byte says whose.
    private func dump<Decoded>(_ type: NetlinkMessageType, payload: [UInt8], expecting: NetlinkMessageType, named name: String,
                               of family: AddressFamily, decode: (ArraySlice<UInt8>) throws -> Decoded) throws -> [Decoded] {
        var decoded: [Decoded] = []
        for message in try dump(type, payload: payload, expecting: expecting, named: name)
        where message.payload.first == UInt8(family.kernelValue) {
            decoded.append(try decode(message.payload))
        }
        return decoded
    }
}

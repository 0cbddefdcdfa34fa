@testable import ReachCore
import ReachSystem

/// A netlink transport that records what is sent and replays canned datagrams;
/// it throws once they run out, so a client that reads too far fails instead of hanging.
final class FakeNetlinkTransport: NetlinkTransport {
    struct Exhausted: Error, Equatable {}

    var sent: [[UInt8]] = []
    var replies: [[UInt8]]
    var sendError: Error?

    init(replies: [[UInt8]] = []) { self.replies = replies }

    func send(_ datagram: [UInt8]) throws {
        if let sendError { throw sendError }
        sent.append(datagram)
    }

    func receive() throws -> [UInt8] {
        guard !replies.isEmpty else { throw Exhausted() }
        return replies.removeFirst()
    }
}

/// Kernel facts from tables: route answers by destination, links by index.
final class FakeKernel: KernelRoutingFacts {
    var routes: [IPAddress: RouteLookupResult]
    var links: [UInt32: LinkFacts]
    private(set) var lookedUp: [IPAddress] = []
    /// The selectors of each batch of lookups, and its size.
    private(set) var batches: [(count: Int, selectors: RouteSelectors)] = []

    init(routes: [IPAddress: RouteLookupResult] = [:], links: [LinkFacts] = []) {
        self.routes = routes
        self.links = Dictionary(uniqueKeysWithValues: links.map { ($0.index, $0) })
    }

    func lookupRoutes(to destinations: [IPAddress], selectors: RouteSelectors) throws -> [RouteLookupResult] {
        lookedUp += destinations
        batches.append((destinations.count, selectors))
        return destinations.map { routes[$0] ?? .rejected(.networkUnreachable) }
    }

    func link(index: UInt32) throws -> LinkFacts? { links[index] }
}

/// A resolver that answers from a table and records what it was asked.
final class FakeResolver: HostResolving {
    var outcomes: [String: ResolutionOutcome]
    private(set) var requests: [(name: String, family: AddressFamily?, timeout: TimeSpan)] = []

    init(_ outcomes: [String: ResolutionOutcome]) { self.outcomes = outcomes }

    func resolve(_ name: String, family: AddressFamily?, timeout: TimeSpan) throws -> ResolutionOutcome {
        requests.append((name, family, timeout))
        return outcomes[name] ?? .notResolved("Name or service not known")
    }
}

/// An address literal the tests write by hand; a typo is a test bug, reported as one.
func address(_ text: String) -> IPAddress {
    do {
        return try IPAddress.parse(text)
    } catch {
        preconditionFailure("test address \(text) does not parse: \(error)")
    }
}

/// The echo reply a datagram socket would deliver for `packet`.
func echoReply(to packet: [UInt8], from: IPAddress, identifier: UInt16? = nil, sequence: UInt16? = nil) -> TransportInput {
    var bytes = packet
    bytes[0] = 0
    if let identifier {
        bytes[4] = UInt8(identifier >> 8)
        bytes[5] = UInt8(identifier & 0xff)
    }
    if let sequence {
        bytes[6] = UInt8(sequence >> 8)
        bytes[7] = UInt8(sequence & 0xff)
    }
    bytes[2] = 0
    bytes[3] = 0
    let sum = ICMPCodec.checksum(bytes[...])
    bytes[2] = UInt8(sum >> 8)
    bytes[3] = UInt8(sum & 0xff)
    return .datagram(
        ReceivedDatagram(
            bytes: bytes, from: from, ttl: 64, kernelTimestamp: real(0),
            monotonicTime: mono(0), includesIPHeader: false))
}

import ReachCore
import ReachSystem

/// One DNS query and its response over UDP or TCP, as miekg/dns's `Client.Exchange` does it
/// for blackbox_exporter's dns prober: the time to open the connection, then the time from
/// the query's send to the response (its `rtt`). Over UDP, responses with another ID are
/// skipped (late answers to an earlier query) and 512 bytes are read, the limit of a
/// message without EDNS (RFC 1035, 4.2.1); over TCP, each message has a two-byte length
/// (RFC 1035, 4.2.2) and a response with another ID is an error.
public enum DNSExchange {
    public enum Transport: String, Sendable {
        case udp
        case tcp
    }

    public struct Phases: Sendable, Equatable {
        public var connect = TimeSpan.zero
        public var request = TimeSpan.zero
        public init() {}
    }

    public struct Failure: Error, Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case timedOut
            /// The port is closed (ICMP port unreachable over UDP, a reset over TCP).
            case refused
            /// The TCP connection closed or was reset before the whole response came.
            case closed
            case unreachable
            case sourceRefused
            /// The link asked for could not be bound to (no such link).
            case interfaceRefused
            /// The response could not be read, or answered another query over TCP.
            case malformed
        }

        public var kind: Kind
        /// One line: "timed out waiting for 192.0.2.1 port 53", "malformed response: ...".
        public var detail: String
        /// The route type behind the kernel's refusal of the connect, before any packet left.
        public var routeRefusal: UnreachableReason?
    }

    static let udpMessageLimit = 512

    /// The response to `query` (whose ID is its first two bytes) from `address` port `port`.
    /// A failing system call that says nothing about the network is thrown.
    public static func run(
        _ query: [UInt8], to address: IPAddress, port: UInt16, over transport: Transport, from source: SocketBinding,
        deadline: MonotonicInstant, phases: inout Phases
    ) throws -> Result<DNSMessage, Failure> {
        let id = query.count >= 2 ? UInt16(query[0]) << 8 | UInt16(query[1]) : 0
        let start = MonotonicInstant.now()
        var requestStart = start
        defer {
            let end = MonotonicInstant.now()
            phases.connect = requestStart - start
            phases.request = end - requestStart
        }
        let peer = "\(address) port \(port)"
        switch transport {
        case .udp:
            let connection: UDPConnection
            switch try UDPConnection.connect(to: address, port: port, from: source) {
            case .connected(let open): connection = open
            case .routeRefused(let errno):
                requestStart = .now()
                return .failure(Failure(routeRefusal: errno, peer: peer))
            case .sourceRefused(let refusal):
                requestStart = .now()
                return .failure(Failure(refusal))
            }
            requestStart = .now()
            return try exchange(query, id: id, over: connection, peer: peer, deadline: deadline)
        case .tcp:
            let outcome = try connect(to: address, port: port, from: source, deadline: deadline)
            requestStart = .now()
            switch outcome {
            case .success(let connection): return try exchange(query, over: connection, peer: peer, deadline: deadline)
            case .failure(let failure): return .failure(failure)
            }
        }
    }

    /// A TCP connection for queries to `address` port `port`, or why none opened.
    public static func connect(
        to address: IPAddress, port: UInt16, from source: SocketBinding, deadline: MonotonicInstant
    ) throws -> Result<TCPConnection, Failure> {
        let peer = "\(address) port \(port)"
        switch try TCPConnection.connect(to: address, port: port, from: source, deadline: deadline) {
        case .connected(let connection): return .success(connection)
        case .refused: return .failure(Failure(kind: .refused, detail: "connection refused by \(peer)"))
        case .timedOut: return .failure(Failure(kind: .timedOut, detail: "timed out connecting to \(peer)"))
        case .unreachable(let errno): return .failure(Failure(kind: .unreachable, detail: "\(peer): \(errno)"))
        case .routeRefused(let errno): return .failure(Failure(routeRefusal: errno, peer: peer))
        case .sourceRefused(let refusal): return .failure(Failure(refusal))
        }
    }

    private static func exchange(
        _ query: [UInt8], id: UInt16, over connection: UDPConnection, peer: String, deadline: MonotonicInstant
    ) throws -> Result<DNSMessage, Failure> {
        if let errno = connection.send(query) { return .failure(Failure(networkError: errno, peer: peer)) }
        while true {
            switch try connection.receive(maximum: udpMessageLimit, deadline: deadline) {
            case .timedOut: return .failure(Failure(kind: .timedOut, detail: "timed out waiting for \(peer)"))
            case .failed(let errno): return .failure(Failure(networkError: errno, peer: peer))
            case .data(let datagram):
                switch decode(datagram) {
                case .success(let message) where message.id != id: continue
                case let decoded: return decoded
                }
            }
        }
    }

    /// The response to `query` over a byte stream (TCP, or the exporter's TLS over it: RFC
    /// 7858, 3.3, frames messages as TCP does), each message after its two-byte length.
    public static func exchange(
        _ query: [UInt8], over connection: any ByteStream, peer: String, deadline: MonotonicInstant
    ) throws -> Result<DNSMessage, Failure> {
        let id = query.count >= 2 ? UInt16(query[0]) << 8 | UInt16(query[1]) : 0
        guard try connection.sendAll(DNSMessage.framed(query), deadline: deadline) else {
            return .failure(Failure(kind: .closed, detail: "\(peer) closed the connection before the query was sent"))
        }
        var received: [UInt8] = []
        while received.count < 2 || received.count < 2 + (Int(received[0]) << 8 | Int(received[1])) {
            switch try connection.receive(maximum: 65_537 - received.count, deadline: deadline) {
            case .data(let bytes): received += bytes
            case .timedOut: return .failure(Failure(kind: .timedOut, detail: "timed out waiting for \(peer)"))
            case .closed, .reset: return .failure(Failure(kind: .closed, detail: "\(peer) closed the connection before answering"))
            }
        }
        let length = Int(received[0]) << 8 | Int(received[1])
        let decoded = decode(Array(received[2..<2 + length]))
        if case .success(let message) = decoded, message.id != id {
            return .failure(Failure(kind: .malformed, detail: "the response's ID \(message.id) is not the query's \(id)"))
        }
        return decoded
    }

    private static func decode(_ bytes: [UInt8]) -> Result<DNSMessage, Failure> {
        do {
            return .success(try DNSMessage.decode(bytes))
        } catch {
            return .failure(Failure(kind: .malformed, detail: "malformed response: \(error)"))
        }
    }
}

extension DNSExchange.Failure {
    init(routeRefusal errno: Errno, peer: String) {
        self.init(
            kind: .unreachable, detail: "\(peer): \(UnreachableReason.describe(refusal: errno))",
            routeRefusal: UnreachableReason(routeRefusal: errno))
    }

    /// The local end the kernel refused: the source address, or the link.
    init(_ refusal: SocketBinding.Refusal) {
        switch refusal {
        case .address(let errno): self.init(kind: .sourceRefused, detail: "cannot send from the source address: \(errno)")
        case .interface(let errno): self.init(kind: .interfaceRefused, detail: "cannot send through the interface: \(errno)")
        }
    }

    init(networkError errno: Errno, peer: String) {
        self.init(kind: errno == .connectionRefused ? .refused : .unreachable, detail: "\(peer): \(errno)")
    }
}

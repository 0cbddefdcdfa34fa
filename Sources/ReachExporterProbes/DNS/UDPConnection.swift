import ReachSystem

/// A connected UDP socket (udp(7)): datagrams to and from one peer, every wait bounded by
/// a monotonic deadline. Being connected, the kernel drops datagrams from other senders and
/// reports the peer's ICMP port unreachable as ECONNREFUSED on the next receive.
public final class UDPConnection {
    private let descriptor: FileDescriptor

    private init(descriptor: consuming FileDescriptor) {
        self.descriptor = descriptor
    }

    public enum ConnectOutcome {
        case connected(UDPConnection)
        /// connect refused by the kernel's route lookup before any packet could leave.
        case routeRefused(Errno)
        /// The local end asked for could not be had, before any packet left.
        case sourceRefused(SocketBinding.Refusal)
    }

    /// From `source`'s address and link when given (port chosen by the kernel), to `address`
    /// port `port`.
    public static func connect(
        to address: IPAddress, port: UInt16, from source: SocketBinding = .unbound
    ) throws(SystemCallError) -> ConnectOutcome {
        let connection = UDPConnection(descriptor: try FileDescriptor.socket(address.family, .datagram))
        if let refusal = connection.descriptor.bind(source) { return .sourceRefused(refusal) }
        // A datagram socket's connect sends nothing: it only looks up the route and fixes the peer.
        if let failure = connection.descriptor.connect(to: address, port: port) {
            let routeRefusals: [Errno] = [.networkUnreachable, .hostUnreachable, .invalidArgument, .permissionDenied]
            guard routeRefusals.contains(failure) else {
                throw SystemCallError("connect", failure)
            }
            return .routeRefused(failure)
        }
        return .connected(connection)
    }

    public enum ReceiveOutcome: Equatable {
        case data([UInt8])
        case timedOut
        /// An error the network reported (ECONNREFUSED: the port is closed; EHOSTUNREACH...).
        case failed(Errno)
    }

    /// Sends one datagram; the network's error when the kernel reports one at once.
    public func send(_ bytes: [UInt8]) -> Errno? {
        switch bytes.withUnsafeBytes({ descriptor.send($0) }) {
        case .success: return nil
        case .failure(let error): return error
        }
    }

    /// The next datagram, cut to `maximum` bytes (the rest of a longer one is dropped, as
    /// recv(2) does for a datagram socket).
    public func receive(maximum: Int, deadline: MonotonicInstant) throws(SystemCallError) -> ReceiveOutcome {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            if try descriptor.wait(for: .readable, timeout: deadline.remaining(from: .now())).isEmpty { return .timedOut }
            switch buffer.withUnsafeMutableBytes({ descriptor.receive(into: $0) }) {
            case .success(let count): return .data(Array(buffer[0..<count]))
            case .failure(let error) where error == .wouldBlock: continue
            case .failure(let error): return .failed(error)
            }
        }
    }
}

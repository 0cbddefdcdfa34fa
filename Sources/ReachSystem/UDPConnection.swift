#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// A connected UDP socket (udp(7)): datagrams to and from one peer, every wait bounded by
/// a monotonic deadline. Being connected, the kernel drops datagrams from other senders and
/// reports the peer's ICMP port unreachable as ECONNREFUSED on the next receive.
public final class UDPConnection {
    private let fileDescriptor: Int32

    private init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    deinit { System.close(fileDescriptor) }

    public enum ConnectOutcome {
        case connected(UDPConnection)
        /// connect refused by the kernel's route lookup before any packet could leave.
        case routeRefused(Errno)
        /// bind(2) refused the source address asked for (EADDRNOTAVAIL: not one of this
        /// host's; EINVAL: another family's), before any packet left.
        case sourceRefused(Errno)
    }

    /// From `source` when given (port chosen by the kernel), to `address` port `port`.
    public static func connect(
        to address: IPAddress, port: UInt16, from source: IPAddress? = nil
    ) throws(SystemCallError) -> ConnectOutcome {
        let fd = try System.socket(address.family.kernelValue, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        let connection = UDPConnection(fileDescriptor: fd)
        if let source, case .failure(let failure) = SocketAddress.with(source, { System.bind(fd, $0, $1) }) {
            return .sourceRefused(failure)
        }
        // A datagram socket's connect sends nothing: it only looks up the route and fixes the peer.
        if let failure = SocketAddress.with(address, port: port, { System.connect(fd, $0, $1) }) {
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
        switch bytes.withUnsafeBytes({ System.send(fileDescriptor, $0) }) {
        case .success: return nil
        case .failure(let error): return error
        }
    }

    /// The next datagram, cut to `maximum` bytes (the rest of a longer one is dropped, as
    /// recv(2) does for a datagram socket).
    public func receive(maximum: Int, deadline: MonotonicInstant) throws(SystemCallError) -> ReceiveOutcome {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            if try Poll.wait(fileDescriptor, for: .readable, timeout: deadline.remaining(from: .now())).isEmpty { return .timedOut }
            switch buffer.withUnsafeMutableBytes({ System.receive(fileDescriptor, into: $0) }) {
            case .success(let count): return .data(Array(buffer[0..<count]))
            case .failure(let error) where error == .wouldBlock: continue
            case .failure(let error): return .failed(error)
            }
        }
    }
}

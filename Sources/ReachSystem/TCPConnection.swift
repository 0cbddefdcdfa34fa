#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// A TCP client connection with every step bounded by a monotonic deadline
/// (non-blocking connect, send and receive through poll).
public final class TCPConnection {
    private var fileDescriptor: Int32

    private init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    deinit {
        if fileDescriptor >= 0 { System.close(fileDescriptor) }
    }

    /// Hands the connected, non-blocking socket to a new owner (the exporter's HTTP/2 client
    /// continues on it), who closes it; this connection can do nothing more.
    public func releaseDescriptor() -> Int32 {
        defer { fileDescriptor = -1 }
        return fileDescriptor
    }

    /// How a connection attempt ended. Refusals and unreachable answers are verdicts.
    public enum ConnectOutcome {
        case connected(TCPConnection)
        case refused
        /// The answer came from the network (an ICMP error), or the neighbour did not answer.
        case unreachable(Errno)
        /// connect itself failed, before a packet left: the kernel's route lookup refused the
        /// destination (no route, or an `unreachable`, `blackhole` or `prohibit` route).
        case routeRefused(Errno)
        case timedOut
        /// bind(2) refused the source address asked for (EADDRNOTAVAIL: not one of this
        /// host's; EINVAL: another family's), before any packet left.
        case sourceRefused(Errno)
    }

    /// `source`: the local address to send from (bound before connect), nil for the kernel's choice.
    public static func connect(
        to address: IPAddress, port: UInt16, from source: IPAddress? = nil, deadline: MonotonicInstant
    ) throws(SystemCallError) -> ConnectOutcome {
        let fd = try System.socket(address.family.kernelValue, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        let connection = TCPConnection(fileDescriptor: fd)
        if let source, case .failure(let errno) = SocketAddress.with(source, { System.bind(fd, $0, $1) }) {
            return .sourceRefused(errno)
        }
        guard var failure = SocketAddress.with(address, port: port, { System.connect(fd, $0, $1) }) else {
            return .connected(connection)
        }
        if [.networkUnreachable, .hostUnreachable, .invalidArgument, .permissionDenied].contains(failure) {
            return .routeRefused(failure)
        }
        if failure == .operationInProgress || failure == .interrupted {
            let ready = try Poll.wait(fd, for: .writable, timeout: deadline.remaining(from: .now()))
            if ready.isEmpty { return .timedOut }
            failure = try System.socketError(fd)
            if failure.rawValue == 0 { return .connected(connection) }
        }
        return try verdict(for: failure, call: "connect")
    }

    /// Connection errors that say something about the network, not about us.
    static func verdict(for failure: Errno, call: String) throws(SystemCallError) -> ConnectOutcome {
        switch failure.rawValue {
        case ECONNREFUSED: return .refused
        case ETIMEDOUT: return .timedOut
        case ENETUNREACH, EHOSTUNREACH, EACCES, EPERM, EINVAL, ENETDOWN, EHOSTDOWN, ECONNRESET:
            return .unreachable(failure)
        default: throw SystemCallError(call, failure)
        }
    }

    /// Sends every byte; false when the deadline passed first or the peer went away.
    public func sendAll(_ bytes: [UInt8], deadline: MonotonicInstant) throws(SystemCallError) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let wait = deadline.remaining(from: .now())
            if try Poll.wait(fileDescriptor, for: .writable, timeout: wait).isEmpty { return false }
            let sent = bytes.withUnsafeBytes { System.send(fileDescriptor, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            switch sent {
            case .success(let count): offset += count
            case .failure(let error) where error == .wouldBlock: continue
            case .failure: return false
            }
        }
        return true
    }

    public enum ReceiveOutcome: Equatable {
        case data([UInt8])
        case closed
        case timedOut
        case reset
    }

    /// The next bytes the peer sent, at most `maximum`.
    public func receive(maximum: Int, deadline: MonotonicInstant) throws(SystemCallError) -> ReceiveOutcome {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let wait = deadline.remaining(from: .now())
            if try Poll.wait(fileDescriptor, for: .readable, timeout: wait).isEmpty { return .timedOut }
            let received = buffer.withUnsafeMutableBytes { System.receive(fileDescriptor, into: $0) }
            switch received {
            case .success(let count) where count > 0: return .data(Array(buffer[0..<count]))
            case .success: return .closed
            case .failure(let error) where error == .wouldBlock: continue
            case .failure: return .reset
            }
        }
    }
}

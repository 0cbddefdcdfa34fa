#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// A TCP client connection with every step bounded by a monotonic deadline
/// (non-blocking connect, send and receive through poll).
public final class TCPConnection {
    private var descriptor: FileDescriptor

    private init(descriptor: consuming FileDescriptor) {
        self.descriptor = descriptor
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
        /// The local end asked for could not be had, before any packet left.
        case sourceRefused(SocketBinding.Refusal)
    }

    /// `source`: the local address and link to send from (bound before connect).
    public static func connect(
        to address: IPAddress, port: UInt16, from source: SocketBinding = .unbound, deadline: MonotonicInstant
    ) throws(SystemCallError) -> ConnectOutcome {
        let connection = TCPConnection(descriptor: try FileDescriptor.socket(address.family, .stream))
        if let refusal = connection.descriptor.bind(source) { return .sourceRefused(refusal) }
        guard var failure = connection.descriptor.connect(to: address, port: port) else {
            return .connected(connection)
        }
        if [.networkUnreachable, .hostUnreachable, .invalidArgument, .permissionDenied].contains(failure) {
            return .routeRefused(failure)
        }
        if failure == .operationInProgress || failure == .interrupted {
            let ready = try connection.descriptor.wait(for: .writable, timeout: deadline.remaining(from: .now()))
            if ready.isEmpty { return .timedOut }
            failure = try connection.descriptor.pendingError()
            if failure.rawValue == 0 { return .connected(connection) }
        }
        return try verdict(for: failure, call: "connect")
    }

    /// How `start` left a connect: begun and not yet ended, or ended at once.
    public enum Start {
        case inProgress(TCPConnection)
        case finished(ConnectOutcome)
    }

    /// Begins a connect without waiting for it: Happy Eyeballs (RFC 8305) keeps several in
    /// flight, polls `readinessDescriptor` for writable, then asks `finishConnect()`.
    public static func start(to address: IPAddress, port: UInt16) throws(SystemCallError) -> Start {
        let connection = TCPConnection(descriptor: try FileDescriptor.socket(address.family, .stream))
        guard let failure = connection.descriptor.connect(to: address, port: port) else { return .finished(.connected(connection)) }
        if [.networkUnreachable, .hostUnreachable, .invalidArgument, .permissionDenied].contains(failure) {
            return .finished(.routeRefused(failure))
        }
        if failure == .operationInProgress || failure == .interrupted { return .inProgress(connection) }
        return .finished(try verdict(for: failure, call: "connect"))
    }

    /// The descriptor that polls writable when a connect begun by `start` has ended.
    public var readinessDescriptor: FileDescriptor.Number { descriptor.number }

    /// How a connect begun by `start` ended, once its descriptor polled ready (SO_ERROR).
    public func finishConnect() throws(SystemCallError) -> ConnectOutcome {
        let failure = try descriptor.pendingError()
        if failure.rawValue == 0 { return .connected(self) }
        return try Self.verdict(for: failure, call: "connect")
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
            if try descriptor.wait(for: .writable, timeout: wait).isEmpty { return false }
            let sent = bytes.withUnsafeBytes { descriptor.send(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
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
            if try descriptor.wait(for: .readable, timeout: wait).isEmpty { return .timedOut }
            let received = buffer.withUnsafeMutableBytes { descriptor.receive(into: $0) }
            switch received {
            case .success(let count) where count > 0: return .data(Array(buffer[0..<count]))
            case .success: return .closed
            case .failure(let error) where error == .wouldBlock: continue
            case .failure: return .reset
            }
        }
    }
}

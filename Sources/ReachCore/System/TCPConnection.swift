#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// A TCP client connection with every step bounded by a monotonic deadline
/// (non-blocking connect, send and receive through poll).
public final class TCPConnection {
    private let fileDescriptor: Int32

    private init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    deinit { System.close(fileDescriptor) }

    /// How a connection attempt ended. Refusals and unreachable answers are verdicts.
    public enum ConnectOutcome {
        case connected(TCPConnection)
        case refused
        case unreachable(Errno)
        case timedOut
    }

    public static func connect(to address: IPAddress, port: UInt16, deadline: Int64) throws -> ConnectOutcome {
        let fd = try System.socket(address.family.kernelValue, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        let connection = TCPConnection(fileDescriptor: fd)
        let result = SocketAddress.with(address, port: port) { Glibc.connect(fd, $0, $1) }
        if result == 0 { return .connected(connection) }
        var failure = Errno.current
        if failure == Errno(rawValue: EINPROGRESS) || failure == .interrupted {
            let ready = try System.poll([(fd, Int16(POLLOUT))], timeoutMilliseconds: MonotonicClock.remaining(until: deadline))
            if ready[0] == 0 { return .timedOut }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = try syscall("getsockopt") { getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) }
            if code == 0 { return .connected(connection) }
            failure = Errno(rawValue: code)
        }
        return try verdict(for: failure, call: "connect")
    }

    /// Connection errors that say something about the network, not about us.
    static func verdict(for failure: Errno, call: String) throws -> ConnectOutcome {
        switch failure.rawValue {
        case ECONNREFUSED: return .refused
        case ETIMEDOUT: return .timedOut
        case ENETUNREACH, EHOSTUNREACH, EACCES, EPERM, EINVAL, ENETDOWN, EHOSTDOWN, ECONNRESET:
            return .unreachable(failure)
        default: throw SystemCallError(call, failure)
        }
    }

    /// Sends every byte; false when the deadline passed first or the peer went away.
    public func sendAll(_ bytes: [UInt8], deadline: Int64) throws -> Bool {
        var offset = 0
        while offset < bytes.count {
            let wait = MonotonicClock.remaining(until: deadline)
            let ready = try System.poll([(fileDescriptor, Int16(POLLOUT))], timeoutMilliseconds: wait)
            if ready[0] == 0 { return false }
            let sent = bytes.withUnsafeBytes {
                Glibc.send(fileDescriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return false
            }
            offset += sent
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
    public func receive(maximum: Int, deadline: Int64) throws -> ReceiveOutcome {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let wait = MonotonicClock.remaining(until: deadline)
            let ready = try System.poll([(fileDescriptor, Int16(POLLIN))], timeoutMilliseconds: wait)
            if ready[0] == 0 { return .timedOut }
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(fileDescriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { return .data(Array(buffer[0..<count])) }
            if count == 0 { return .closed }
            if errno == EAGAIN || errno == EINTR { continue }
            return .reset
        }
    }
}

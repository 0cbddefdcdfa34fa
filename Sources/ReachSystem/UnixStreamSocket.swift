#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// A connected AF_UNIX stream socket (unix(7)), non-blocking: what a D-Bus client talks to
/// the system bus through. Every wait is bounded by the caller's timeout.
public final class UnixStreamSocket {
    private let descriptor: FileDescriptor
    /// What a poll loop waits on for the bus's messages.
    public var fileDescriptor: FileDescriptor.Number { descriptor.number }

    private init(descriptor: consuming FileDescriptor) {
        self.descriptor = descriptor
    }

    /// Connects to `path` (a file name, or with `abstract` a name in the abstract namespace,
    /// unix(7)). nil when nothing listens there: no such file (ENOENT), refused, a full
    /// backlog (EAGAIN on a non-blocking connect) or a name too long for sun_path.
    public static func connect(path: String, isAbstract abstract: Bool) -> UnixStreamSocket? {
        guard let (unix, length) = unixAddress(path: path, isAbstract: abstract) else { return nil }
        var address = unix
        guard let socket = try? FileDescriptor.openSocket(domain: AF_UNIX, .stream, nonBlocking: true) else { return nil }
        let fd = socket.rawValue
        let failure = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { System.connect(fd, $0, length) }
        }
        guard failure == nil else { return nil }
        return UnixStreamSocket(descriptor: socket)
    }

    /// The real user ID, which SASL EXTERNAL names (the kernel vouches for it: SO_PEERCRED).
    public static var userID: UInt32 { System.userID() }

    /// Writes all of `bytes`, waiting for room at most `timeout` in all; false when the time
    /// ran out or the peer is gone.
    public func send(_ bytes: [UInt8], timeout: TimeSpan) -> Bool {
        let deadline = MonotonicInstant.now() + timeout
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { descriptor.send(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
            switch result {
            case .success(let count): sent += count
            case .failure(.wouldBlock):
                let left = deadline.remaining(from: .now())
                // A poll that fails is a send that failed: the caller drops the connection.
                guard left > .zero, let events = try? descriptor.wait(for: .writable, timeout: left),
                      events.contains(.writable) else { return false }
            case .failure: return false
            }
        }
        return true
    }

    /// Reads what is queued, without waiting: empty when nothing is, nil when the peer
    /// closed the connection (or it failed).
    public func receiveAvailable() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let result = buffer.withUnsafeMutableBytes { descriptor.receive(into: $0) }
        switch result {
        case .success(0): return nil
        case .success(let count): return Array(buffer[0..<count])
        case .failure(.wouldBlock): return []
        case .failure: return nil
        }
    }

    /// Waits until something can be read (or the peer hung up), at most `timeout`.
    public func waitReadable(timeout: TimeSpan) -> Bool {
        guard let events = try? descriptor.wait(for: .readable, timeout: timeout) else {
            return true  // let the read report what is wrong
        }
        return !events.isEmpty
    }
}

/// A sockaddr_un for `path` (a file name, or with `abstract` a name in the abstract
/// namespace, unix(7)) and its length; nil when the name is empty or too long for sun_path.
func unixAddress(path: String, isAbstract abstract: Bool) -> (sockaddr_un, socklen_t)? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let name = Array(path.utf8)
    let offset = abstract ? 1 : 0
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    // A file name needs its terminating NUL; an abstract name is counted, not terminated.
    guard !name.isEmpty, name.count + offset < capacity || (abstract && name.count + offset == capacity) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in name.enumerated() { raw[index + offset] = byte }
    }
    return (address, socklen_t(MemoryLayout<sa_family_t>.size + offset + name.count + (abstract ? 0 : 1)))
}

extension CurrentProcess {
    /// An environment variable's value (getenv(3)), nil when unset.
    public static func environment(_ name: String) -> String? {
        System.environmentValue(name)
    }
}

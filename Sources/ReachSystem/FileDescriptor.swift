#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// An open file descriptor and the duty to close it: swift-system's `FileDescriptor` (a
/// typed descriptor, not a bare `Int32`), made the owner. It is non-copyable because a copy
/// would be a second owner, and the second close(2) of one number may close a descriptor
/// the kernel has since handed to another thread. So each one is closed exactly once, by
/// its owner's end (deinit). Where a descriptor is only named, not owned (in a poll set,
/// to a signal handler, standard output), its `Number` is passed: a copyable name that
/// closes nothing, since an array or a protocol requirement cannot hold a non-copyable value.
public struct FileDescriptor: ~Copyable {
    /// A descriptor's number, as poll(2), a signal handler or another owner is given it.
    public struct Number: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public init(integerLiteral value: Int32) { rawValue = value }
        public var description: String { "\(rawValue)" }

        /// No descriptor: poll(2) skips a negative one, and nothing closes it.
        public static let none: Number = -1
        public static let standardInput: Number = 0
        public static let standardOutput: Number = 1
        public static let standardError: Number = 2
    }

    public let number: Number

    /// Takes ownership of a descriptor the kernel has just returned.
    init(owning rawValue: Int32) {
        number = Number(rawValue: rawValue)
    }

    deinit {
        if number != .none { System.close(number.rawValue) }
    }

    /// The number, for the wrappers of System.swift.
    var rawValue: Int32 { number.rawValue }

    /// Waits for `events` (nil `timeout`: until one comes); the events, empty when the time ran out.
    public borrowing func wait(for events: PollEvents, timeout: TimeSpan?) throws(SystemCallError) -> PollEvents {
        try Poll.wait(number, for: events, timeout: timeout)
    }
}

/// A socket's type, socket(2)'s second argument (SOCK_STREAM, SOCK_DGRAM, SOCK_RAW in
/// <sys/socket.h>).
public struct SocketType: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public static let stream = SocketType(rawValue: Int32(SOCK_STREAM.rawValue))
    public static let datagram = SocketType(rawValue: Int32(SOCK_DGRAM.rawValue))
    public static let raw = SocketType(rawValue: Int32(SOCK_RAW.rawValue))
}

/// The preamble of every socket owner, written once: socket(2) close-on-exec, owned from
/// its first moment (so a failure after it closes it), and the calls a connection makes.
extension FileDescriptor {
    /// socket(2) in `domain` (AF_INET, AF_NETLINK...), close-on-exec, non-blocking when
    /// asked; the errno when the kernel refuses it, for callers to whom a refusal is a verdict.
    static func openSocket(
        domain: Int32, _ type: SocketType, protocol: Int32 = 0, nonBlocking: Bool = false
    ) throws(Errno) -> FileDescriptor {
        let flags = nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0
        switch System.openSocket(domain, type.rawValue | flags, `protocol`) {
        case .success(let fd): return FileDescriptor(owning: fd)
        case .failure(let errno): throw errno
        }
    }

    /// `openSocket`, with a refusal thrown as an error naming socket(2).
    static func socket(
        domain: Int32, _ type: SocketType, protocol: Int32 = 0, nonBlocking: Bool = false
    ) throws(SystemCallError) -> FileDescriptor {
        do throws(Errno) {
            return try openSocket(domain: domain, type, protocol: `protocol`, nonBlocking: nonBlocking)
        } catch {
            throw SystemCallError("socket", error)
        }
    }

    /// A non-blocking socket of `family`, as connections open theirs.
    public static func socket(_ family: AddressFamily, _ type: SocketType) throws(SystemCallError) -> FileDescriptor {
        try socket(domain: family.kernelValue, type, nonBlocking: true)
    }

    /// bind(2) to `address`, the port chosen by the kernel; the errno of a refusal
    /// (EADDRNOTAVAIL: not one of this host's addresses; EINVAL: another family's).
    public borrowing func bind(to address: IPAddress) -> Errno? {
        let fd = rawValue
        guard case .failure(let errno) = SocketAddress.with(address, { System.bind(fd, $0, $1) }) else { return nil }
        return errno
    }

    /// SO_BINDTODEVICE to the link `name`: the socket's route lookups then use only that
    /// link's routes, and it takes only packets that came in on it (socket(7)); the errno
    /// of a refusal (ENODEV: no such link). CAP_NET_RAW is needed only to change a binding
    /// already made (sock_bindtoindex_locked in net/core/sock.c, since Linux 5.7).
    public borrowing func bind(toInterface name: String) -> Errno? {
        guard case .failure(let errno) = System.bindToDevice(rawValue, name) else { return nil }
        return errno
    }

    /// Binds to what `binding` asks, the link first (an address is then checked against
    /// the link's scope); nil when it is bound.
    public borrowing func bind(_ binding: SocketBinding) -> SocketBinding.Refusal? {
        if let name = binding.interface, let errno = bind(toInterface: name) { return .interface(errno) }
        if let address = binding.address, let errno = bind(to: address) { return .address(errno) }
        return nil
    }

    /// connect(2) to `address` port `port`: nil when connected, else the errno (EINPROGRESS
    /// on a non-blocking stream socket whose handshake goes on).
    public borrowing func connect(to address: IPAddress, port: UInt16) -> Errno? {
        let fd = rawValue
        return SocketAddress.with(address, port: port) { System.connect(fd, $0, $1) }
    }

    /// The error a non-blocking connect ended with (SO_ERROR), 0 when it succeeded.
    public borrowing func pendingError() throws(SystemCallError) -> Errno {
        try System.socketError(rawValue)
    }

    /// send(2) of `bytes` (MSG_NOSIGNAL): how many were sent, or the errno.
    public borrowing func send(_ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        System.send(rawValue, bytes)
    }

    /// recv(2) into `buffer`: how many bytes came (0: the peer closed a stream), or the errno.
    public borrowing func receive(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        System.receive(rawValue, into: buffer)
    }
}

/// A pipe(2), close-on-exec, each end owned: a wake-up a poll loop waits on beside its
/// other descriptors (a finished job, a signal handler's byte).
struct Pipe: ~Copyable {
    let read: FileDescriptor
    let write: FileDescriptor

    init() throws(SystemCallError) {
        let ends = try System.pipe()
        read = FileDescriptor(owning: ends.read)
        write = FileDescriptor(owning: ends.write)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// A C `errno` value (mirrors `<errno.h>`), kept as a number so an unknown one survives.
public struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    static var current: Errno { Errno(rawValue: errno) }

    public static let interrupted = Errno(rawValue: EINTR)
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    public static let networkUnreachable = Errno(rawValue: ENETUNREACH)
    public static let hostUnreachable = Errno(rawValue: EHOSTUNREACH)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let notPermitted = Errno(rawValue: EPERM)
    public static let noBufferSpace = Errno(rawValue: ENOBUFS)
    public static let noDevice = Errno(rawValue: ENODEV)
    public static let noSuchProcess = Errno(rawValue: ESRCH)
    public static let protocolNotSupported = Errno(rawValue: EPROTONOSUPPORT)
    public static let addressFamilyNotSupported = Errno(rawValue: EAFNOSUPPORT)
    public static let brokenPipe = Errno(rawValue: EPIPE)
    public static let operationNotSupported = Errno(rawValue: EOPNOTSUPP)
    public static let addressNotAvailable = Errno(rawValue: EADDRNOTAVAIL)
    public static let messageTooLong = Errno(rawValue: EMSGSIZE)
    public static let operationInProgress = Errno(rawValue: EINPROGRESS)
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    public static let outOfMemory = Errno(rawValue: ENOMEM)
    public static let fileTooLarge = Errno(rawValue: EFBIG)
    public static let noSuchFile = Errno(rawValue: ENOENT)

    /// The `strerror` text, e.g. "Network is unreachable".
    public var description: String { String(cString: strerror(rawValue)) }
}

/// A system call that failed for a reason that is not a verdict; names the call.
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Errno
    public init(_ call: String, _ errno: Errno) {
        self.call = call
        self.errno = errno
    }
    public var description: String { "\(call): \(errno)" }
}

#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// The service manager's readiness protocol, sd_notify(3), written here rather than linked
/// from libsystemd: one datagram of `KEY=VALUE` lines sent to the AF_UNIX socket named by
/// `$NOTIFY_SOCKET` (a file name, or `@name` in the abstract namespace). systemd documents
/// the protocol as a stable interface (sd_notify(3), "Notes", and systemd's interface
/// portability and stability list); its `vsock:` addresses, for virtual machines, are not taken.
public final class ServiceNotifier {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// `$NOTIFY_SOCKET` is neither an absolute file name nor `@name`, or too long.
        case unusableAddress(String)
        case socket(SystemCallError)

        public var description: String {
            switch self {
            case .unusableAddress(let text): "NOTIFY_SOCKET '\(text)' is neither an absolute path nor an @abstract name"
            case .socket(let error): "\(error)"
            }
        }
    }

    private let descriptor: FileDescriptor
    private var address: sockaddr_un
    private let length: socklen_t

    private init(descriptor: consuming FileDescriptor, address: sockaddr_un, length: socklen_t) {
        self.descriptor = descriptor
        self.address = address
        self.length = length
    }

    /// The socket `$NOTIFY_SOCKET` names; nil when it is unset or empty, as sd_notify(3)
    /// then sends nothing and succeeds (the program was not started by a service manager
    /// that waits for it).
    public static func fromEnvironment() throws(Failure) -> ServiceNotifier? {
        guard let text = System.environmentValue("NOTIFY_SOCKET"), !text.isEmpty else { return nil }
        let abstract = text.hasPrefix("@")
        guard abstract || text.hasPrefix("/"),
              let (address, length) = unixAddress(path: abstract ? String(text.dropFirst()) : text, isAbstract: abstract)
        else { throw .unusableAddress(text) }
        do throws(SystemCallError) {
            return ServiceNotifier(descriptor: try FileDescriptor.socket(domain: AF_UNIX, .datagram), address: address, length: length)
        } catch {
            throw .socket(error)
        }
    }

    /// Sends `assignments` (`READY=1`, `STATUS=...`) as one datagram, newline-separated;
    /// the error when the manager's socket refused it (gone, or not listening).
    @discardableResult
    public func send(_ assignments: [String]) -> SystemCallError? {
        let bytes = Array(assignments.joined(separator: "\n").utf8)
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes { System.sendTo(descriptor.rawValue, $0, socketAddress, length) }
            }
        }
        if case .failure(let errno) = result { return SystemCallError("sendto", errno) }
        return nil
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The service manager's socket passing, sd_listen_fds(3), written here rather than linked
/// from libsystemd: `$LISTEN_PID` names this process and `$LISTEN_FDS` counts the
/// descriptors passed from 3 (SD_LISTEN_FDS_START) on. The variables are unset once read,
/// as sd_listen_fds(1) and go-systemd's activation.Files(true) do, so that no child takes
/// them for its own; the descriptors are made close-on-exec.
public enum SocketActivation {
    /// SD_LISTEN_FDS_START.
    public static let firstDescriptor: FileDescriptor.Number = 3

    /// The descriptors passed to this process, empty when none were: numbers, not owners,
    /// for the server that listens on them (SwiftNIO's channel) owns and closes them.
    public static func descriptors() -> [FileDescriptor.Number] {
        defer {
            for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        }
        guard let owner = System.environmentValue("LISTEN_PID").flatMap({ Int32($0) }), owner == System.processIdentifier(),
            let count = System.environmentValue("LISTEN_FDS").flatMap({ Int32($0) }), count > 0, count < 1024
        else { return [] }
        let descriptors = (0..<count).map { FileDescriptor.Number(rawValue: firstDescriptor.rawValue + $0) }
        for descriptor in descriptors { _ = fcntl(descriptor.rawValue, F_SETFD, FD_CLOEXEC) }
        return descriptors
    }
}

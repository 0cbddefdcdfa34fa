#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// SIGINT and SIGTERM as a descriptor a poll loop waits on (signalfd(2)): the signals are
/// blocked for this thread and the threads it starts later, and the descriptor turns
/// readable when one arrives. Create it before starting threads that must not see them.
public final class SignalDescriptor {
    private let descriptor: FileDescriptor
    /// What a poll loop waits on.
    public var fileDescriptor: FileDescriptor.Number { descriptor.number }

    public convenience init() throws(SystemCallError) {
        try self.init(signals: [SIGINT, SIGTERM])
    }

    private init(signals: [Int32]) throws(SystemCallError) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        try System.blockSignals(set)
        descriptor = FileDescriptor(owning: try System.signalDescriptor(for: set))
    }

    /// SIGHUP alone, which daemons take as "read your configuration again" (`systemctl
    /// reload` sends it when the unit says `ExecReload=kill -HUP $MAINPID`).
    public static func hangUps() throws(SystemCallError) -> SignalDescriptor {
        try SignalDescriptor(signals: [SIGHUP])
    }

    /// Blocks until a signal is pending, then reads it.
    public func next() throws(SystemCallError) -> Int32 {
        while true {
            _ = try descriptor.wait(for: .readable, timeout: nil)
            if let signal = take() { return signal }
        }
    }

    /// Reads one pending signal; its number, or nil when none was pending.
    public func take() -> Int32? {
        var info = signalfd_siginfo()
        let result = withUnsafeMutableBytes(of: &info) { System.read(descriptor.rawValue, into: $0) }
        guard case .success(let count) = result, count == MemoryLayout<signalfd_siginfo>.size else { return nil }
        return Int32(info.ssi_signo)
    }
}

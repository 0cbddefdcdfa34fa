#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGQUIT handling for `reach ping` without Swift concurrency: the handler
/// writes one byte to a pipe that the poll loop watches. iputils ends the run with its
/// statistics on SIGINT, and prints the statistics so far on SIGQUIT and goes on
/// (ping/ping_common.c, sigexit and sigstatus); the loop does the same when it sees the byte.
public enum InterruptSignal {
    // nonisolated(unsafe): written once before the handlers are installed, then only read,
    // from the handlers; a signal handler can take no lock.
    nonisolated(unsafe) static var descriptor = FileDescriptor.Number.none

    /// The bytes written to the pipe, as `ICMPSocket.wait` reads them. An enum's raw value
    /// is a plain switch, with no lazy initialiser to run inside a signal handler (as a
    /// static constant's first read may).
    enum Byte: UInt8 {
        case stop = 1
        case status = 2
    }

    /// `descriptor` stays its owner's (the ping socket's interruption pipe); it is only written to.
    public static func install(writingTo descriptor: FileDescriptor.Number) {
        Self.descriptor = descriptor  // set before any signal can arrive
        System.setSignalHandler(SIGINT) { _ in InterruptSignal.send(.stop) }
        System.setSignalHandler(SIGQUIT) { _ in InterruptSignal.send(.status) }
    }

    static func send(_ byte: Byte) {
        System.writeByte(descriptor.rawValue, byte.rawValue)
    }
}

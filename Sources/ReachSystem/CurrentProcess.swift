#if canImport(Glibc)
import Glibc
#endif

/// What the command line does to its own process at start and at the end.
public enum CurrentProcess {
    /// A reader that goes away must give EPIPE on the next write, not a SIGPIPE death.
    public static func ignoreBrokenPipes() {
        System.setSignalHandler(SIGPIPE, SIG_IGN)
    }

    /// Ends the process with `status` (exit(3): stdio flushed, atexit handlers run).
    public static func exit(status: Int32) -> Never {
        System.exitProcess(status)
    }
}

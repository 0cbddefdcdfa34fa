#if canImport(Glibc)
import Glibc
#endif
import CReachShims

/// What the command line does to its own process at start and at the end.
public enum CurrentProcess {
    /// A reader that goes away must give EPIPE on the next write, not a SIGPIPE death.
    /// Timed waits end within a microsecond of their deadline instead of up to 50 us late
    /// (prctl(2) PR_SET_TIMERSLACK; the default slack is 50 us): a run paced at one probe a
    /// millisecond over thousands of targets would otherwise lose the slack at every send.
    public static func tightenTimerSlack() {
        // A kernel without PR_SET_TIMERSLACK leaves the default slack: waits 50 us later, nothing worse.
        _ = System.setTimerSlack(nanoseconds: 1000)
    }

    public static func ignoreBrokenPipes() {
        System.setSignalHandler(SIGPIPE, SIG_IGN)
    }

    /// At most `count` malloc arenas (mallopt(3) M_ARENA_MAX). glibc gives threads that
    /// allocate at once arenas of their own, up to 8 per core, and each keeps what was freed
    /// in it: a pool of probe threads would hold that much more memory for nothing.
    public static func limitMallocArenas(_ count: Int32) {
        // mallopt(3) returns 0 only for an unknown parameter or value: glibc's defaults then stay.
        _ = mallopt(M_ARENA_MAX, count)
    }

    /// Ends the process with `status` (exit(3): stdio flushed, atexit handlers run).
    public static func exit(status: Int32) -> Never {
        System.exitProcess(status)
    }
}

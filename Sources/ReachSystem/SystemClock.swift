#if canImport(Glibc)
import Glibc
#endif

/// The system's clocks for code that takes a clock it can be given (the ping loop, which
/// tests drive with a manual clock): CLOCK_MONOTONIC times deadlines, intervals and round
/// trips (a clock step cannot move it); CLOCK_REALTIME is what is printed, and what the
/// kernel's SO_TIMESTAMPNS receive stamps count in (so a send time compared with one must be
/// read on it too: socket(7), SO_TIMESTAMPNS). Code that needs no such clock reads
/// `MonotonicInstant.now()` and `RealtimeInstant.now()`.
public final class SystemClock: Sendable {
    public init() {}

    /// The local time of day (localtime_r(3), the zone of TZ or /etc/localtime), as fping
    /// prints it before each interval report.
    public static func localTimeOfDay() -> (hour: Int, minute: Int, second: Int) {
        var seconds = time_t(RealtimeInstant.now().seconds)
        var broken = tm()
        guard localtime_r(&seconds, &broken) != nil else { return (0, 0, 0) }
        return (Int(broken.tm_hour), Int(broken.tm_min), Int(broken.tm_sec))
    }

    public var monotonicNow: MonotonicInstant { MonotonicInstant.now() }
    public var realtimeNow: RealtimeInstant { RealtimeInstant.now() }
}

#if canImport(Glibc)
import Glibc
#endif

/// The system's clocks, the one clock type of reach. CLOCK_MONOTONIC times deadlines,
/// intervals and round trips (a clock step cannot move it); CLOCK_REALTIME is what is
/// printed, and what the kernel's SO_TIMESTAMPNS receive stamps count in (so a send time
/// compared with one must be read on it too: socket(7), SO_TIMESTAMPNS).
///
/// The static functions read the clocks; an instance reads the same clocks for code that
/// takes a clock it can be given (the ping loop, which tests drive with a manual clock).
public final class SystemClock: Sendable {
    public init() {}

    public static func monotonicNanoseconds() -> Int64 { System.clockNanoseconds(CLOCK_MONOTONIC) }
    public static func realtimeNanoseconds() -> Int64 { System.clockNanoseconds(CLOCK_REALTIME) }
    public static func monotonicMilliseconds() -> Int64 { monotonicNanoseconds() / 1_000_000 }
    public static func realtimeMilliseconds() -> Int64 { realtimeNanoseconds() / 1_000_000 }

    /// What is left until `deadline` (CLOCK_MONOTONIC milliseconds), as a poll timeout:
    /// never negative.
    public static func millisecondsRemaining(until deadline: Int64) -> Int32 {
        Int32(clamping: max(0, deadline - monotonicMilliseconds()))
    }

    /// The local time of day (localtime_r(3), the zone of TZ or /etc/localtime), as fping
    /// prints it before each interval report.
    public static func localTimeOfDay() -> (hour: Int, minute: Int, second: Int) {
        var seconds = time_t(realtimeNanoseconds() / 1_000_000_000)
        var broken = tm()
        guard localtime_r(&seconds, &broken) != nil else { return (0, 0, 0) }
        return (Int(broken.tm_hour), Int(broken.tm_min), Int(broken.tm_sec))
    }

    public var monotonicNanoseconds: Int64 { Self.monotonicNanoseconds() }
    public var monotonicNow: MonotonicInstant { MonotonicInstant.now() }
    public var realtimeNow: RealtimeInstant { RealtimeInstant.now() }
    public var realtimeNanoseconds: Int64 { Self.realtimeNanoseconds() }
}

#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in milliseconds: deadlines that a clock step cannot move.
public enum MonotonicClock {
    public static func nowMilliseconds() -> Int64 {
        nowNanoseconds() / 1_000_000
    }

    public static func nowNanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// What is left until `deadline`, for poll: never negative.
    public static func remaining(until deadline: Int64) -> Int32 {
        Int32(clamping: max(0, deadline - nowMilliseconds()))
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in milliseconds: deadlines that a clock step cannot move.
public enum MonotonicClock {
    public static func nowMilliseconds() -> Int64 {
        nowNanoseconds() / 1_000_000
    }

    public static func nowNanoseconds() -> Int64 {
        System.monotonicNanoseconds
    }

    /// What is left until `deadline`, for poll: never negative.
    public static func remaining(until deadline: Int64) -> Int32 {
        Int32(clamping: max(0, deadline - nowMilliseconds()))
    }
}

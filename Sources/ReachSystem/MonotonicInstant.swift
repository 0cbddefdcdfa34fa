#if canImport(Glibc)
import Glibc
#endif

/// A moment on CLOCK_MONOTONIC: the one type for every deadline, start time and "last seen"
/// in reach. A clock step (NTP, `date -s`) cannot move it (clock_gettime(2)); lengths between
/// two of them are `TimeSpan`s.
public struct MonotonicInstant: Hashable, Comparable, Sendable {
    /// Nanoseconds on CLOCK_MONOTONIC (since boot, suspend excluded).
    public var nanoseconds: Int64
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static func now() -> MonotonicInstant { MonotonicInstant(nanoseconds: System.clockNanoseconds(CLOCK_MONOTONIC)) }

    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public static func + (lhs: MonotonicInstant, rhs: TimeSpan) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: saturated(lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds), positive: rhs.nanoseconds > 0))
    }
    public static func - (lhs: MonotonicInstant, rhs: TimeSpan) -> MonotonicInstant {
        let nanoseconds = saturated(lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds), positive: rhs.nanoseconds < 0)
        return MonotonicInstant(nanoseconds: nanoseconds)
    }
    public static func += (lhs: inout MonotonicInstant, rhs: TimeSpan) { lhs = lhs + rhs }
    /// The length from `rhs` to `lhs` (negative when `lhs` is earlier).
    public static func - (lhs: MonotonicInstant, rhs: MonotonicInstant) -> TimeSpan {
        TimeSpan(nanoseconds: saturated(lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds), positive: rhs.nanoseconds < 0))
    }

    /// What is left from `now` until this deadline: never negative.
    public func remaining(from now: MonotonicInstant) -> TimeSpan { max(.zero, self - now) }
    /// What is left until this deadline as a poll(2) timeout (rounded up, never negative).
    public func pollTimeout(from now: MonotonicInstant) -> Int32 { remaining(from: now).pollTimeout }
}

/// A moment on CLOCK_REALTIME: what is printed, and what the kernel's SO_TIMESTAMPNS receive
/// stamps count in, so a send time compared with one must be read on it too (socket(7)).
public struct RealtimeInstant: Hashable, Comparable, Sendable {
    /// Nanoseconds since the Unix epoch.
    public var nanoseconds: Int64
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static func now() -> RealtimeInstant { RealtimeInstant(nanoseconds: System.clockNanoseconds(CLOCK_REALTIME)) }

    public static func < (lhs: RealtimeInstant, rhs: RealtimeInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public static func - (lhs: RealtimeInstant, rhs: RealtimeInstant) -> TimeSpan {
        TimeSpan(nanoseconds: saturated(lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds), positive: rhs.nanoseconds < 0))
    }
    /// Whole seconds since the epoch.
    public var seconds: Int64 { nanoseconds / 1_000_000_000 }
}

import ReachSystem

extension MonotonicInstant {
    /// A moment `value` milliseconds after the clock's origin: the manual clocks of the tests count in them.
    static func ms(_ value: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: value * 1_000_000) }
}

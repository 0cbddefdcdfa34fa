/// A length of time: the one type for every timeout, interval, wait and round trip in reach
/// (`MonotonicInstant` is the one type for a moment). Kept in nanoseconds, the resolution of
/// clock_gettime(2) and of the kernel's receive stamps; users write it as a number with `ms`,
/// `s` or `m`, a bare number being seconds ("5", "1.5s", "300ms", "2m").
public struct TimeSpan: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    public init(milliseconds: Int64) {
        self.nanoseconds = saturated(milliseconds.multipliedReportingOverflow(by: 1_000_000), positive: milliseconds > 0)
    }
    public init(seconds: Int64) {
        self.nanoseconds = saturated(seconds.multipliedReportingOverflow(by: 1_000_000_000), positive: seconds > 0)
    }

    public static func nanoseconds(_ value: Int64) -> TimeSpan { TimeSpan(nanoseconds: value) }
    public static func milliseconds(_ value: Int64) -> TimeSpan { TimeSpan(milliseconds: value) }
    public static func seconds(_ value: Int64) -> TimeSpan { TimeSpan(seconds: value) }
    public static let zero = TimeSpan(nanoseconds: 0)

    /// Whole milliseconds, truncated (what fping and the JSON print, what users wrote).
    public var milliseconds: Int64 { nanoseconds / 1_000_000 }
    /// Microseconds, truncated (iputils' RTT arithmetic, ping_common.c, counts in them).
    public var microseconds: Int64 { nanoseconds / 1_000 }
    /// Seconds as a Double, for the exposition format and for averages.
    public var secondsValue: Double { Double(nanoseconds) / 1e9 }

    /// The longest span accepted: a day, far beyond any sane wait, and safe for poll's Int32.
    public static let maximum = TimeSpan(milliseconds: 86_400_000)

    public static func < (lhs: TimeSpan, rhs: TimeSpan) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public static func + (lhs: TimeSpan, rhs: TimeSpan) -> TimeSpan {
        TimeSpan(nanoseconds: saturated(lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds), positive: rhs.nanoseconds > 0))
    }
    public static func - (lhs: TimeSpan, rhs: TimeSpan) -> TimeSpan {
        TimeSpan(nanoseconds: saturated(lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds), positive: rhs.nanoseconds < 0))
    }
    public static func * (lhs: TimeSpan, rhs: Int64) -> TimeSpan {
        TimeSpan(nanoseconds: saturated(lhs.nanoseconds.multipliedReportingOverflow(by: rhs), positive: (lhs.nanoseconds > 0) == (rhs > 0)))
    }
    public static func += (lhs: inout TimeSpan, rhs: TimeSpan) { lhs = lhs + rhs }
    public static func -= (lhs: inout TimeSpan, rhs: TimeSpan) { lhs = lhs - rhs }

    public enum ParseError: Error, Equatable {
        case notADuration(String)
        case outOfRange(String)
    }

    public static func parse(_ text: String) throws(ParseError) -> TimeSpan {
        let units: [(suffix: String, factor: Double)] = [("ms", 1), ("s", 1000), ("m", 60_000)]
        var number = Substring(text)
        var factor = 1000.0
        for unit in units where text.hasSuffix(unit.suffix) {
            number = text.dropLast(unit.suffix.count)
            factor = unit.factor
            break
        }
        guard let value = plainDecimal(number) else { throw .notADuration(text) }
        let milliseconds = (value * factor).rounded()
        guard milliseconds <= Double(maximum.milliseconds) else { throw .outOfRange(text) }
        return TimeSpan(milliseconds: Int64(milliseconds))
    }

    /// A number as people write a time: ASCII digits and at most one dot ("5", "1.5", ".5"),
    /// none of the signs, exponents, "inf" or "nan" that `Double(_:)` would also take.
    public static func plainDecimal(_ text: Substring) -> Double? {
        guard !text.isEmpty, text != ".", text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            text.filter({ $0 == "." }).count <= 1
        else { return nil }
        return Double(text)
    }

    /// As a poll(2) timeout: whole milliseconds rounded up (a wait of 0.4 ms is not a busy
    /// 0), never negative, clamped to Int32.
    public var pollTimeout: Int32 {
        guard nanoseconds > 0 else { return 0 }
        return Int32(clamping: nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 == 0 ? 0 : 1))
    }

    /// Seconds as people write them: "5", "1.5", "0.3" (never "5.0").
    public var secondsText: String {
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)" }
        return "\(Double(milliseconds) / 1000)"
    }

    public var description: String {
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        return "\(milliseconds)ms"
    }
}

/// An Int64 result that saturates instead of trapping: a day's span times a huge count is
/// still "very long", never a crash.
@inline(__always)
func saturated(_ result: (partialValue: Int64, overflow: Bool), positive: Bool) -> Int64 {
    guard result.overflow else { return result.partialValue }
    return positive ? .max : .min
}

/// A length of time: the one type for every timeout, interval, wait and round trip in reach
/// (`MonotonicInstant` is the one type for a moment). Kept in nanoseconds, the resolution of
/// clock_gettime(2) and of the kernel's receive stamps; users write it in Go's duration
/// grammar (`parse`), a bare number being seconds ("5", "1.5s", "300ms", "2m").
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

    /// `text` read by the one duration grammar, Go's time.ParseDuration (src/time/format.go):
    /// an optional sign, then numbers ("1.5", ".5") each followed by a unit ("1m30s"), "0"
    /// alone. `grammar` says what of it a reader takes and how it differs (a bare number is
    /// seconds for `ping -i`, as iputils reads it). What the CLI writes: "5", "1.5s", "300ms".
    public static func parse(_ text: String, _ grammar: DurationGrammar = .commandLine) throws(ParseError) -> TimeSpan {
        guard let nanoseconds = grammar.nanoseconds(in: Array(text.utf8)[...]) else { throw .notADuration(text) }
        let rounded = (nanoseconds / Double(grammar.resolution)).rounded() * Double(grammar.resolution)
        if abs(rounded) > Double(grammar.longest.nanoseconds) {
            guard grammar.clampsToLongest else { throw .outOfRange(text) }
            return rounded < 0 ? TimeSpan(nanoseconds: -grammar.longest.nanoseconds) : grammar.longest
        }
        return TimeSpan(nanoseconds: Int64(rounded))
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

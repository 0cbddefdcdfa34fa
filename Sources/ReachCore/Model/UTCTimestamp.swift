import ReachSystem

/// ISO-8601 UTC timestamps with milliseconds ("2026-11-22T05:30:01.120Z"), made by hand:
/// no Foundation in the core (start-up cost, docs/LINUX-FACTS.md).
public enum UTCTimestamp {
    public static func iso8601(_ instant: RealtimeInstant) -> String { iso8601(millisecondsSinceEpoch: instant.millisecondsSinceEpoch) }

    public static func iso8601(millisecondsSinceEpoch value: Int64) -> String {
        let millisecondsPerDay: Int64 = 86_400_000
        var days = value / millisecondsPerDay
        var rest = value % millisecondsPerDay
        if rest < 0 {
            rest += millisecondsPerDay
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        let seconds = rest / 1000
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
            + "." + pad(rest % 1000, 3) + "Z"
    }

    /// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to a proleptic Gregorian date.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

extension RealtimeInstant {
    /// Whole milliseconds since the epoch, rounded down (what the timestamps print).
    public var millisecondsSinceEpoch: Int64 {
        let (quotient, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return remainder < 0 ? quotient - 1 : quotient
    }

    /// Seconds since the epoch as a Double: the Prometheus exposition's timestamps.
    public var secondsSinceEpoch: Double { Double(nanoseconds) / 1e9 }
}

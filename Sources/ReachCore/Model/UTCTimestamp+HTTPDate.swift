/// HTTP dates (RFC 9110, 5.6.7) read as Go's net/http.ParseTime reads them: IMF-fixdate
/// ("Sun, 06 Nov 1994 08:49:37 GMT"), then the obsolete RFC 850 form ("Sunday, 06-Nov-94
/// 08:49:37 GMT", any zone name taken as UTC, as Go takes an unknown one) and asctime's
/// ("Sun Nov  6 08:49:37 1994").
extension UTCTimestamp {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// Seconds since the epoch; nil for text in none of the three forms or a date that does
    /// not exist (30 February, 24:00:00).
    public static func secondsSinceEpoch(httpDate text: String) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        let words = text.split(separator: " ")
        if parts.count == 6, parts[0].hasSuffix(","), weekdays.contains(where: { $0.prefix(3) == parts[0].dropLast() }),
           parts[1].count == 2, parts[3].count == 4, parts[5] == "GMT"
        {
            return seconds(year: number(parts[3]), month: parts[2], day: number(parts[1]), time: parts[4])
        }
        if parts.count == 4, parts[0].hasSuffix(","), weekdays.contains(where: { $0 == parts[0].dropLast() }),
           parts[3].count >= 3, parts[3].allSatisfy({ $0.isUppercase })
        {
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard date.count == 3, date[0].count == 2, date[2].count == 2, let year = number(date[2]) else { return nil }
            // Go's two-digit years: 69 to 99 are 19xx, the rest 20xx (time.Parse, stdYear).
            return seconds(year: year + (year >= 69 ? 1900 : 2000), month: date[1], day: number(date[0]), time: parts[2])
        }
        if words.count == 5, weekdays.contains(where: { $0.prefix(3) == words[0] }), words[2].count <= 2, words[4].count == 4 {
            return seconds(year: number(words[4]), month: words[1], day: number(words[2]), time: words[3])
        }
        return nil
    }

    private static func number(_ digits: Substring) -> Int64? {
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(digits)
    }

    private static func seconds(year: Int64?, month name: Substring, day: Int64?, time: Substring) -> Int64? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard let year, let day, let index = months.firstIndex(where: { $0 == name }), clock.count == 3,
              clock.allSatisfy({ $0.count == 2 }),
              let hour = number(clock[0]), let minute = number(clock[1]), let second = number(clock[2]),
              hour < 24, minute < 60, second < 60, (1...31).contains(day)
        else { return nil }
        let month = Int64(index + 1)
        let days = self.days(fromCivil: year, month, day)
        // A day past the month's end rolls into the next month: no such date.
        guard civil(fromDays: days) == (year, month, day) else { return nil }
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// Howard Hinnant's `days_from_civil`, the inverse of `civil(fromDays:)`.
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

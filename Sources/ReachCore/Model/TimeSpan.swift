/// A duration as users write it: a number with `ms`, `s` or `m`, a bare number
/// being seconds ("5", "1.5s", "300ms", "2m"). Kept in milliseconds.
public struct TimeSpan: Hashable, Sendable, CustomStringConvertible {
    public var milliseconds: Int64
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// The longest span accepted: a day, far beyond any sane wait, and safe for poll's Int32.
    public static let maximum = TimeSpan(milliseconds: 86_400_000)

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
        // Digits and one dot only: no signs, exponents, "inf" or "nan".
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              number.filter({ $0 == "." }).count <= 1, number != ".",
              let value = Double(number) else {
            throw .notADuration(text)
        }
        let milliseconds = (value * factor).rounded()
        guard milliseconds <= Double(maximum.milliseconds) else { throw .outOfRange(text) }
        return TimeSpan(milliseconds: Int64(milliseconds))
    }

    public var pollTimeout: Int32 { Int32(clamping: milliseconds) }

    /// Seconds as people write them: "5", "1.5", "0.3" (never "5.0").
    public var seconds: String {
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)" }
        return "\(Double(milliseconds) / 1000)"
    }

    public var description: String {
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        return "\(milliseconds)ms"
    }
}

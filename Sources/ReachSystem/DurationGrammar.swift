/// What a reader of durations takes of Go's time.ParseDuration grammar (src/time/format.go),
/// and where it differs: one grammar, read by `TimeSpan.parse`, with these as its options.
public struct DurationGrammar: Sendable {
    /// The units a number may carry; none: numbers of seconds only.
    public var units: DurationUnits
    /// Whether a number without a unit, as the whole text, is seconds ("5", as iputils and
    /// blackbox's flags read it); Go takes only "0" so.
    public var bareSeconds: Bool
    /// Whether a number may have an exponent ("1e3"), as strconv.ParseFloat reads one.
    public var exponents: Bool
    /// Whether a leading "+" or "-" is taken, as Go takes it.
    public var signed: Bool
    /// The span the value is rounded to, in nanoseconds (the CLI's durations keep whole
    /// milliseconds, what users write and the JSON prints).
    public var resolution: Int64
    /// The longest span read; beyond it the text is out of range, or this span when
    /// `clampsToLongest` ("1e300" seconds is long, not an error).
    public var longest: TimeSpan
    public var clampsToLongest: Bool

    public init(
        units: DurationUnits, bareSeconds: Bool, exponents: Bool = false, signed: Bool = false, resolution: Int64 = 1,
        longest: TimeSpan = .maximum, clampsToLongest: Bool = false
    ) {
        self.units = units
        self.bareSeconds = bareSeconds
        self.exponents = exponents
        self.signed = signed
        self.resolution = resolution
        self.longest = longest
        self.clampsToLongest = clampsToLongest
    }

    /// reach's duration options (`--timeout 5`, `--settle 300ms`): ms, s and m, a bare
    /// number being seconds, whole milliseconds, a day at most.
    public static let commandLine = DurationGrammar(units: [.ms, .s, .m], bareSeconds: true, resolution: 1_000_000)
    /// iputils ping's -i and -W (ping.c reads them with strtod): a number of seconds, no unit.
    public static let seconds = DurationGrammar(units: [], bareSeconds: true)
    /// Go's time.Duration as yaml.v3 reads it in blackbox.yml: every unit, a sign, and "0"
    /// the only number without a unit; a day at most, longer ones held to a day.
    public static let go = DurationGrammar(units: .all, bareSeconds: false, signed: true, clampsToLongest: true)

    /// The text's nanoseconds, unrounded; nil when the text is not in the grammar.
    func nanoseconds(in text: ArraySlice<UInt8>) -> Double? {
        var rest = text
        var sign = 1.0
        if signed, let first = rest.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            sign = first == UInt8(ascii: "-") ? -1 : 1
            rest = rest.dropFirst()
        }
        // Go: "0" alone needs no unit.
        if rest.elementsEqual([UInt8(ascii: "0")]) { return 0 }
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        var numbers = 0
        while !rest.isEmpty {
            guard let value = number(from: &rest) else { return nil }
            numbers += 1
            let unitEnd = rest.firstIndex { Self.isDigit($0) || $0 == UInt8(ascii: ".") } ?? rest.endIndex
            if unitEnd == rest.startIndex {
                // A bare number: seconds, when it is the whole text.
                guard bareSeconds, rest.isEmpty, numbers == 1 else { return nil }
                return sign * value * 1e9
            }
            guard let scale = units.nanoseconds(of: rest[..<unitEnd]) else { return nil }
            total += value * scale
            rest = rest[unitEnd...]
        }
        return sign * total
    }

    /// Digits with at most one dot ("5", "1.5", ".5", "5."), then an exponent where taken.
    private func number(from rest: inout ArraySlice<UInt8>) -> Double? {
        var end = rest.startIndex
        var digits = 0
        var dots = 0
        while end < rest.endIndex, Self.isDigit(rest[end]) || rest[end] == UInt8(ascii: ".") {
            if rest[end] == UInt8(ascii: ".") { dots += 1 } else { digits += 1 }
            end += 1
        }
        guard digits > 0, dots <= 1 else { return nil }
        if exponents, end < rest.endIndex, rest[end] | 0x20 == UInt8(ascii: "e") {
            var exponentEnd = end + 1
            if exponentEnd < rest.endIndex, rest[exponentEnd] == UInt8(ascii: "-") || rest[exponentEnd] == UInt8(ascii: "+") {
                exponentEnd += 1
            }
            let exponentDigits = exponentEnd
            while exponentEnd < rest.endIndex, Self.isDigit(rest[exponentEnd]) { exponentEnd += 1 }
            guard exponentEnd > exponentDigits else { return nil }
            end = exponentEnd
        }
        guard let value = Double(String(decoding: rest[rest.startIndex..<end], as: UTF8.self)) else { return nil }
        rest = rest[end...]
        return value
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

/// Go's duration units (time.unitMap), each a reader may take or not.
public struct DurationUnits: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let ns = DurationUnits(rawValue: 1 << 0)
    /// "us", "µs" (U+00B5) and "μs" (U+03BC), as Go spells microseconds.
    public static let us = DurationUnits(rawValue: 1 << 1)
    public static let ms = DurationUnits(rawValue: 1 << 2)
    public static let s = DurationUnits(rawValue: 1 << 3)
    public static let m = DurationUnits(rawValue: 1 << 4)
    public static let h = DurationUnits(rawValue: 1 << 5)
    public static let all: DurationUnits = [.ns, .us, .ms, .s, .m, .h]

    /// The nanoseconds of one `name`, if it is a unit taken here.
    func nanoseconds(of name: ArraySlice<UInt8>) -> Double? {
        let found: (unit: DurationUnits, scale: Double)
        switch String(decoding: name, as: UTF8.self) {
        case "ns": found = (.ns, 1)
        case "us", "\u{B5}s", "\u{3BC}s": found = (.us, 1e3)
        case "ms": found = (.ms, 1e6)
        case "s": found = (.s, 1e9)
        case "m": found = (.m, 60e9)
        case "h": found = (.h, 3600e9)
        default: return nil
        }
        return contains(found.unit) ? found.scale : nil
    }
}

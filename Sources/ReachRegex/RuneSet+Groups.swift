/// The named groups of runes Go's `regexp/syntax` knows: Perl classes and POSIX classes
/// (perl_groups.go, ASCII only) and Unicode general categories (`unicode.Categories`).
extension RuneSet {
    /// `\d`, `\s`, `\w` (their capital forms negated): `\s` is [\t\n\f\r ], without `\v`.
    static let perl: [Unicode.Scalar: [ClosedRange<UInt32>]] = [
        "d": [0x30...0x39],
        "s": [0x09...0x0A, 0x0C...0x0D, 0x20...0x20],
        "w": [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A],
    ]

    /// `[:name:]`.
    static let posix: [String: [ClosedRange<UInt32>]] = [
        "alnum": [0x30...0x39, 0x41...0x5A, 0x61...0x7A], "alpha": [0x41...0x5A, 0x61...0x7A], "ascii": [0x00...0x7F],
        "blank": [0x09...0x09, 0x20...0x20], "cntrl": [0x00...0x1F, 0x7F...0x7F], "digit": [0x30...0x39],
        "graph": [0x21...0x7E], "lower": [0x61...0x7A], "print": [0x20...0x7E],
        "punct": [0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E], "space": [0x09...0x0D, 0x20...0x20],
        "upper": [0x41...0x5A], "word": [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A],
        "xdigit": [0x30...0x39, 0x41...0x46, 0x61...0x66],
    ]

    /// Go's category names, each with the standard library's categories it gathers. Go's `C`
    /// is Cc, Cf, Co and Cs: unassigned code points are in no category.
    private static let categoryNames: [String: [Unicode.GeneralCategory]] = [
        "Lu": [.uppercaseLetter], "Ll": [.lowercaseLetter], "Lt": [.titlecaseLetter], "Lm": [.modifierLetter],
        "Lo": [.otherLetter], "Mn": [.nonspacingMark], "Mc": [.spacingMark], "Me": [.enclosingMark],
        "Nd": [.decimalNumber], "Nl": [.letterNumber], "No": [.otherNumber], "Pc": [.connectorPunctuation],
        "Pd": [.dashPunctuation], "Ps": [.openPunctuation], "Pe": [.closePunctuation], "Pi": [.initialPunctuation],
        "Pf": [.finalPunctuation], "Po": [.otherPunctuation], "Sm": [.mathSymbol], "Sc": [.currencySymbol],
        "Sk": [.modifierSymbol], "So": [.otherSymbol], "Zs": [.spaceSeparator], "Zl": [.lineSeparator],
        "Zp": [.paragraphSeparator], "Cc": [.control], "Cf": [.format], "Co": [.privateUse], "Cs": [.surrogate],
        "L": [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter],
        "M": [.nonspacingMark, .spacingMark, .enclosingMark], "N": [.decimalNumber, .letterNumber, .otherNumber],
        "P": [
            .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation,
        ],
        "S": [.mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol],
        "Z": [.spaceSeparator, .lineSeparator, .paragraphSeparator], "C": [.control, .format, .privateUse, .surrogate],
    ]

    /// `\p{name}`: `Any` or a general category; nil for any other name.
    static func unicode(_ name: String) -> RuneSet? {
        if name == "Any" { return all }
        guard let categories = categoryNames[name] else { return nil }
        let table = CategoryTable.shared.ranges
        return RuneSet(categories.flatMap { table[$0] ?? [] })
    }
}

/// Every rune's general category, read once from the standard library's Unicode tables.
private struct CategoryTable: Sendable {
    let ranges: [Unicode.GeneralCategory: [ClosedRange<UInt32>]]

    static let shared = CategoryTable()

    private init() {
        var ranges: [Unicode.GeneralCategory: [ClosedRange<UInt32>]] = [.surrogate: [0xD800...0xDFFF]]
        var start: UInt32 = 0
        var current: Unicode.GeneralCategory?
        for value in UInt32(0)...(RuneSet.maximumRune + 1) {
            let category = Unicode.Scalar(value).map { $0.properties.generalCategory }
            guard category != current else { continue }
            if let current, current != .unassigned { ranges[current, default: []].append(start...(value - 1)) }
            start = value
            current = category
        }
        self.ranges = ranges
    }
}

import ReachSystem

/// Escapes and character classes as Go's `regexp/syntax` reads them (parse.go: parseEscape,
/// parseClass, parsePerlClassEscape, the POSIX classes of perl_groups.go), in Swift's words.
extension BlackboxRegex.Translation {
    /// Go's Perl classes (ASCII), as class members.
    static let perlClasses: [Unicode.Scalar: (members: String, negated: Bool)] = [
        "d": ("0-9", false), "D": ("0-9", true),
        "s": ("\\t\\n\\x{c}\\r ", false), "S": ("\\t\\n\\x{c}\\r ", true),
        "w": ("0-9A-Za-z_", false), "W": ("0-9A-Za-z_", true),
    ]

    /// Go's POSIX classes (ASCII), as class members.
    static let posixClasses: [String: String] = [
        "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x{0}-\\x{7f}", "blank": "\\t ", "cntrl": "\\x{0}-\\x{1f}\\x{7f}",
        "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\x{b}\\x{c}\\r ",
        "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
    ]

    /// After a backslash outside a class.
    mutating func escape() throws(BlackboxRegex.Failure) {
        guard let scalar = current else { throw refuse("trailing backslash at end of expression") }
        switch scalar {
        case "A", "z", "b", "B":
            index += 1
            anchor("\\" + String(scalar))
        case "Q": try quoted()
        case _ where Self.perlClasses[scalar] != nil:
            index += 1
            let (members, negated) = Self.perlClasses[scalar] ?? ("", false)
            atom(negated ? "[^\(members)]" : "[\(members)]")
        case "p", "P": atom(try unicodeClass())
        default: atom(Self.literal(try escapedScalar()))
        }
    }

    /// `\Q...\E`: each scalar literal (`\E` may be left out at the end).
    private mutating func quoted() throws(BlackboxRegex.Failure) {
        index += 1
        while let scalar = current {
            if scalar == "\\", peek(1) == "E" {
                index += 2
                return
            }
            index += 1
            atom(Self.literal(scalar))
        }
    }

    /// `\pL`, `\p{Greek}`, `\PL`, `\p{^Greek}`: written `\p{...}` / `\P{...}`, which Swift reads.
    mutating func unicodeClass() throws(BlackboxRegex.Failure) -> String {
        guard let letter = current else { throw refuse("invalid character class range: \\p") }
        index += 1
        var name = ""
        if current == "{" {
            guard let braced = braced(), !braced.isEmpty else { throw refuse("invalid character class range: \\\(letter){") }
            name = braced
        } else if let scalar = current {
            name = String(scalar)
            index += 1
        }
        var negated = letter == "P"
        if name.hasPrefix("^") {
            negated.toggle()
            name.removeFirst()
        }
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }) else {
            throw refuse("invalid character class range: \\\(letter)\(name)")
        }
        return "\\\(negated ? "P" : "p"){\(name)}"
    }

    /// At `{`: what comes before the next `}`, both passed; nil without a `}`.
    private mutating func braced() -> String? {
        var end = index + 1
        var text = ""
        while end < scalars.count, scalars[end] != "}" {
            text.unicodeScalars.append(scalars[end])
            end += 1
        }
        guard end < scalars.count else { return nil }
        index = end + 1
        return text
    }

    /// One scalar after a backslash: a C escape, hexadecimal, octal or a punctuation mark.
    mutating func escapedScalar() throws(BlackboxRegex.Failure) -> Unicode.Scalar {
        guard let scalar = current else { throw refuse("trailing backslash at end of expression") }
        index += 1
        switch scalar {
        case "a": return "\u{07}"
        case "f": return "\u{0C}"
        case "t": return "\t"
        case "n": return "\n"
        case "r": return "\r"
        case "v": return "\u{0B}"
        case "x": return try hexadecimal()
        case "0"..."7":
            // Go: \1 to \7 alone would be backreferences, which RE2 has not; \0 and two or three
            // digits are octal.
            var value = scalar.value - 48
            var digits = 1
            while digits < 3, let next = current, ("0"..."7").contains(next) {
                value = value * 8 + next.value - 48
                index += 1
                digits += 1
            }
            if scalar != "0" && digits == 1 { throw refuse("RE2 has no backreference \\\(scalar)") }
            return Unicode.Scalar(value) ?? "\u{0}"
        case "8", "9": throw refuse("RE2 has no backreference \\\(scalar)")
        case "Z": throw refuse("RE2 has no \\Z: \\z is the end of the text")
        case "C": throw refuse("\\C (any byte) cannot be matched in Swift")
        default:
            guard scalar.isASCII, !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar) else {
                throw refuse("invalid escape sequence: \\\(scalar)")
            }
            return scalar
        }
    }

    /// `\x7F` or `\x{10FFFF}`.
    private mutating func hexadecimal() throws(BlackboxRegex.Failure) -> Unicode.Scalar {
        var digits = ""
        if current == "{" {
            guard let braced = braced() else { throw refuse("invalid escape sequence: \\x{") }
            digits = braced
        } else {
            for _ in 0..<2 {
                guard let scalar = current else { break }
                digits.unicodeScalars.append(scalar)
                index += 1
            }
        }
        guard !digits.isEmpty, digits.count <= 8, let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value),
            digits.allSatisfy(\.isHexDigit)
        else { throw refuse("invalid escape sequence: \\x\(digits)") }
        return scalar
    }

    /// After `[`: the members up to `]`, each written again so that Swift reads no set
    /// operation or nested class into them; negated classes inside become nested classes.
    mutating func characterClass() throws(BlackboxRegex.Failure) {
        var text = "["
        if current == "^" {
            index += 1
            text += "^"
        }
        var first = true
        while let scalar = current, scalar != "]" || first {
            first = false
            if scalar == "[", peek(1) == ":", let members = try posixClass() {
                text += members
                continue
            }
            if scalar == "\\", let next = peek(1), Self.perlClasses[next] != nil || next == "p" || next == "P" {
                index += 1
                if let (members, negated) = Self.perlClasses[next] {
                    index += 1
                    text += negated ? "[^\(members)]" : members
                } else {
                    text += try unicodeClass()
                }
                continue
            }
            let low = try classScalar()
            if current == "-", let after = peek(1), after != "]" {
                index += 1
                let high = try classScalar()
                guard low.value <= high.value else { throw refuse("invalid character class range: \(low)-\(high)") }
                text += Self.classMember(low) + "-" + Self.classMember(high)
            } else {
                text += Self.classMember(low)
            }
        }
        guard current == "]" else { throw refuse("missing closing ]") }
        index += 1
        atom(text + "]")
    }

    private mutating func classScalar() throws(BlackboxRegex.Failure) -> Unicode.Scalar {
        guard let scalar = current else { throw refuse("missing closing ]") }
        index += 1
        return scalar == "\\" ? try escapedScalar() : scalar
    }

    /// `[:alpha:]` or `[:^alpha:]`; nil when no `:]` follows (Go's `[` is then a member).
    private mutating func posixClass() throws(BlackboxRegex.Failure) -> String? {
        var end = index + 2
        var name = ""
        while end + 1 < scalars.count, !(scalars[end] == ":" && scalars[end + 1] == "]") {
            name.unicodeScalars.append(scalars[end])
            end += 1
        }
        guard end + 1 < scalars.count else { return nil }
        let negated = name.hasPrefix("^")
        guard let members = Self.posixClasses[negated ? String(name.dropFirst()) : name] else {
            throw refuse("invalid character class range: [:\(name):]")
        }
        index = end + 2
        return negated ? "[^\(members)]" : members
    }

    /// A scalar inside a class, escaped when Swift would read it as syntax there.
    static func classMember(_ scalar: Unicode.Scalar) -> String {
        if scalar.value < 0x20 || scalar.value == 0x7F { return "\\x{\(String(scalar.value, radix: 16))}" }
        return "[]\\^-&~|:[".unicodeScalars.contains(scalar) ? "\\" + String(scalar) : String(scalar)
    }
}

/// Escapes and character classes as regexp/syntax parse.go reads them (parseEscape,
/// parseClass, parseNamedClass, parseUnicodeClass, parsePerlClassEscape).
extension Parser {
    /// After a backslash outside a class.
    mutating func escape() throws(RE2.Error) {
        guard let scalar = current else { throw RE2.Error("trailing backslash at end of expression") }
        switch scalar {
        case "A", "z", "b", "B":
            index += 1
            let kinds: [Unicode.Scalar: Assertion] = ["A": .beginText, "z": .endText, "b": .wordBoundary, "B": .notWordBoundary]
            push(.assertion(kinds[scalar] ?? .beginText))
        case "Q":
            // \Q...\E: each rune a literal, to \E or the end.
            index += 1
            while let quoted = current, !(quoted == "\\" && peek(1) == "E") {
                index += 1
                pushLiteral(quoted.value)
            }
            if current != nil { index += 2 }
        case "d", "s", "w", "D", "S", "W", "p", "P": push(.set(try group() ?? RuneSet()))
        default: pushLiteral(try escapedRune())
        }
    }

    /// At a backslash or `[:`: a Perl, POSIX or Unicode class, folded under `i`, negated
    /// after folding; nil when none starts here.
    private mutating func group() throws(RE2.Error) -> RuneSet? {
        var members: RuneSet
        var negated = false
        guard let scalar = current else { return nil }
        let lower = Unicode.Scalar(UInt8(truncatingIfNeeded: scalar.value | 0x20))
        if scalar.isASCII, let ranges = RuneSet.perl[lower] {
            index += 1
            members = RuneSet(ranges)
            negated = scalar != lower
        } else if current == "p" || current == "P" {
            (members, negated) = try unicodeClass()
        } else {
            return nil
        }
        if flags.foldCase { members = members.folded }
        return negated ? members.negated : members
    }

    /// After `\` at `p` or `P`: `\pL`, `\p{Lu}`, `\PN`, `\p{^L}`.
    private mutating func unicodeClass() throws(RE2.Error) -> (RuneSet, negated: Bool) {
        let start = index - 1
        var negated = current == "P"
        index += 1
        var name: String
        if current == Syntax.openBrace {
            guard let end = scalars[index...].firstIndex(of: Syntax.closeBrace) else {
                throw RE2.Error("invalid character class range: \(text(start..<scalars.count))")
            }
            name = text((index + 1)..<end)
            index = end + 1
        } else {
            name = current.map { String($0) } ?? ""
            index = Swift.min(index + 1, scalars.count)
        }
        if name.hasPrefix("^") {
            negated.toggle()
            name.removeFirst()
        }
        guard let members = RuneSet.unicode(name) else {
            if Self.scriptNames.contains(name) {
                throw RE2.Error("reach-exporter does not support Unicode script classes: \(text(start..<index))")
            }
            throw RE2.Error("invalid character class range: \(text(start..<index))")
        }
        return (members, negated)
    }

    /// One rune after a backslash: a C escape, hexadecimal, octal or a punctuation mark.
    mutating func escapedRune() throws(RE2.Error) -> UInt32 {
        guard let scalar = current else { throw RE2.Error("trailing backslash at end of expression") }
        let start = index - 1
        index += 1
        let cEscapes: [Unicode.Scalar: UInt32] = ["a": 0x07, "f": 0x0C, "t": 0x09, "n": 0x0A, "r": 0x0D, "v": 0x0B]
        if let value = cEscapes[scalar] { return value }
        switch scalar {
        case "x": if let value = hexadecimal() { return value }
        case "0"..."7":
            // \1 to \7 alone would be backreferences, which RE2 has not; \0 and two or three
            // digits are octal.
            if scalar != "0" && !(current.map { ("0"..."7").contains($0) } ?? false) {
                throw RE2.Error("RE2 has no backreference \\\(scalar)")
            }
            var value = scalar.value - 48
            for _ in 1..<3 {
                guard let next = current, ("0"..."7").contains(next) else { break }
                value = value * 8 + next.value - 48
                index += 1
            }
            return value
        case "8", "9": throw RE2.Error("RE2 has no backreference \\\(scalar)")
        case "Z": throw RE2.Error("RE2 has no \\Z: \\z is the end of the text")
        default: if scalar.isASCII && !Self.isAlphanumeric(scalar) { return scalar.value }
        }
        throw RE2.Error("invalid escape sequence: \(text(start..<index))")
    }

    /// After `\x`: two hexadecimal digits, or one or more in braces up to U+10FFFF.
    private mutating func hexadecimal() -> UInt32? {
        let digit = { (scalar: Unicode.Scalar?) -> UInt32? in scalar.flatMap { $0.isASCII ? UInt32(String($0), radix: 16) : nil } }
        if current == Syntax.openBrace {
            index += 1
            var value: UInt32 = 0
            var count = 0
            while let next = current, next != Syntax.closeBrace {
                guard let nibble = digit(next) else { return nil }
                value = value * 16 + nibble
                count += 1
                index += 1
                if value > RuneSet.maximumRune { return nil }
            }
            guard current == Syntax.closeBrace, count > 0 else { return nil }
            index += 1
            return value
        }
        guard let high = digit(current), let low = digit(peek(1)) else {
            index = Swift.min(index + 2, scalars.count)
            return nil
        }
        index += 2
        return high * 16 + low
    }

    /// After `[`, `start` its index: the members up to `]`, folded under `i`, then negated
    /// by a leading `^`.
    mutating func characterClass(_ start: Int) throws(RE2.Error) -> RuneSet {
        var negated = false
        if current == "^" {
            index += 1
            negated = true
        }
        var members = RuneSet()
        var first = true
        while current != Syntax.closeBracket || first {
            first = false
            guard current != nil else { throw RE2.Error("missing closing ]: \(text(start..<scalars.count))") }
            if current == Syntax.openBracket, peek(1) == ":", let posix = try posixClass() {
                members = members.union(posix)
                continue
            }
            if current == "\\" {
                index += 1
                if let group = try group() {
                    members = members.union(group)
                    continue
                }
                index -= 1
            }
            let rangeStart = current == "\\" ? index - 1 : index
            let low = try classRune()
            var high = low
            if current == "-", let after = peek(1), after != Syntax.closeBracket {
                index += 1
                high = try classRune()
                guard low <= high else { throw RE2.Error("invalid character class range: \(text(rangeStart..<index))") }
            }
            let range = RuneSet([low...high])
            members = members.union(flags.foldCase ? range.folded : range)
        }
        index += 1
        return negated ? members.negated : members
    }

    /// One rune inside a class, escaped or not.
    private mutating func classRune() throws(RE2.Error) -> UInt32 {
        guard let scalar = current else { throw RE2.Error("missing closing ]") }
        index += 1
        return scalar == "\\" ? try escapedRune() : scalar.value
    }

    /// At `[:`: `[:alpha:]` or `[:^alpha:]`, folded under `i`; nil when no `:]` follows
    /// (the `[` is then a member, as in Go).
    private mutating func posixClass() throws(RE2.Error) -> RuneSet? {
        var end = index + 2
        while end + 1 < scalars.count, !(scalars[end] == ":" && scalars[end + 1] == Syntax.closeBracket) { end += 1 }
        guard end + 1 < scalars.count else { return nil }
        var name = text((index + 2)..<end)
        let spelled = text(index..<(end + 2))
        let negated = name.hasPrefix("^")
        if negated { name.removeFirst() }
        guard let ranges = RuneSet.posix[name] else { throw RE2.Error("invalid character class range: \(spelled)") }
        index = end + 2
        let members = flags.foldCase ? RuneSet(ranges).folded : RuneSet(ranges)
        return negated ? members.negated : members
    }
}

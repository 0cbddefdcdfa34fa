/// Repetitions and flag groups, as regexp/syntax parse.go reads them (repeat, parseRepeat,
/// parsePerlFlags).
extension Parser {
    /// Applies `*`, `+`, `?` or `{min,max}` (already read, `text` its spelling) to the last
    /// item, lazy when a `?` follows; `U` swaps greedy and lazy.
    mutating func repeatLast(min: Int, max: Int, counted: Bool, text: String) throws(RE2.Error) {
        let frame = frames.count - 1
        guard let last = frames[frame].items.last else { throw RE2.Error("missing argument to repetition operator: \(text)") }
        guard !lastRepeated else { throw RE2.Error("invalid nested repetition operator: \(text) (RE2 has no possessive repetition)") }
        var greedy = true
        if current == "?" {
            index += 1
            greedy = false
        }
        let node = Node.repetition(last, min: min, max: max, greedy: greedy != flags.ungreedy, counted: counted)
        if counted && (min >= 2 || max >= 2) && !node.repeatsFit(Self.maximumRepeat) {
            throw RE2.Error("invalid repeat count: \(text)")
        }
        frames[frame].items[frames[frame].items.count - 1] = node
    }

    /// At `{`: `{n}`, `{n,}` or `{n,m}` repeat; any other `{` is a literal, as in Go. Whether
    /// it repeated.
    mutating func brace(_ start: Int) throws(RE2.Error) -> Bool {
        let save = index
        guard let min = number() else {
            index = save
            pushLiteral(0x7B)
            return false
        }
        var max = min
        if current == "," {
            index += 1
            max = current == Syntax.closeBrace ? -1 : number() ?? -2
        }
        guard max != -2, current == Syntax.closeBrace else {
            index = save
            pushLiteral(0x7B)
            return false
        }
        index += 1
        let text = text(start..<index)
        guard min >= 0, min <= Self.maximumRepeat, max <= Self.maximumRepeat, max == -1 || min <= max else {
            throw RE2.Error("invalid repeat count: \(text)")
        }
        try repeatLast(min: min, max: max, counted: true, text: text)
        return true
    }

    /// Decimal digits without a leading zero, as Go's parseInt reads them: from 10^8 on, -1
    /// (so that a minimum that large is refused, and a maximum that large is no bound).
    private mutating func number() -> Int? {
        let start = index
        while let scalar = current, ("0"..."9").contains(scalar) { index += 1 }
        guard index > start, !(index - start >= 2 && scalars[start] == "0") else { return nil }
        var value = 0
        for digit in scalars[start..<index] {
            if value >= 100_000_000 { return -1 }
            value = value * 10 + Int(digit.value - 48)
        }
        return value
    }

    /// After `(?`: flags among i, m, s and U, a `-` before those turned off, then `)` (for
    /// the rest of the group) or `:` (for a group of their own).
    mutating func flagGroup() throws(RE2.Error) {
        let start = index - 2
        var changed = flags
        var negated = false
        var sawFlag = false
        while let scalar = current {
            index += 1
            switch scalar {
            case "i": changed.foldCase = !negated
            case "m": changed.multiLine = !negated
            case "s": changed.dotAll = !negated
            case "U": changed.ungreedy = !negated
            case "-" where !negated:
                negated = true
                sawFlag = false
                continue
            case ":", Syntax.closeParen:
                guard !negated || sawFlag else { throw RE2.Error("invalid or unsupported Perl syntax: \(text(start..<index))") }
                if scalar == ":" { try openFrame(capture: nil) }
                flags = changed
                return
            default: throw RE2.Error(Self.unsupportedGroup(scalar, next: current))
            }
            sawFlag = true
        }
        throw RE2.Error("missing closing )")
    }

    private static func unsupportedGroup(_ scalar: Unicode.Scalar, next: Unicode.Scalar?) -> String {
        switch (scalar, next) {
        case ("=", _), ("!", _): "RE2 has no lookahead (?\(scalar)"
        case ("<", "="), ("<", "!"): "RE2 has no lookbehind (?<\(next.map(String.init) ?? "")"
        case ("<", _): "Go's regexp takes named groups as (?P<name>re), not (?<name>re)"
        case (">", _): "RE2 has no atomic group (?>"
        case ("P", _): "RE2 has no backreference (?P=name) or recursion (?P>name)"
        case ("#", _): "RE2 has no comment group (?#"
        default: "RE2 does not accept (?\(scalar): flags are i, m, s and U"
        }
    }
}

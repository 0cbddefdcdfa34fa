/// A parsed pattern: Go's `regexp/syntax` Regexp tree, repetitions not yet copied.
indirect enum Node: Sendable {
    case empty
    /// One rune.
    case literal(UInt32)
    /// One rune among a set.
    case set(RuneSet)
    case assertion(Assertion)
    /// Group `index` (1...), its two slots 2·index and 2·index+1.
    case capture(Node, index: Int)
    /// `*`, `+`, `?` (counted false) or `{min,max}` (max -1 without bound).
    case repetition(Node, min: Int, max: Int, greedy: Bool, counted: Bool)
    case concatenation([Node])
    case alternation([Node])

    /// Go's budget: 128 MiB of 40-byte instructions (regexp/syntax parse.go, maxSize).
    static let maximumSize = (128 << 20) / 40

    /// The program's size as Go's calcSize counts it (regexp/syntax parse.go), saturated.
    var size: Int {
        let total: Int
        switch self {
        case .empty, .literal, .set, .assertion: total = 1
        case .capture(let sub, _): total = 2 + sub.size
        case .repetition(let sub, let min, let max, _, let counted):
            let inner = sub.size
            if !counted {
                total = (min == 0 && max == -1 ? 2 : 1) + inner
            } else if max == -1 {
                total = min == 0 ? 2 + inner : 1 + min.multipliedReportingOverflow(by: inner).partialValue
            } else {
                total = max.multipliedReportingOverflow(by: inner).partialValue + (max - min)
            }
        case .concatenation(let subs): total = subs.reduce(0) { Swift.min($0 + $1.size, Int.max / 2) }
        case .alternation(let subs): total = subs.reduce(subs.count - 1) { Swift.min($0 + $1.size, Int.max / 2) }
        }
        return Swift.min(Swift.max(total, 1), Int.max / 2)
    }

    /// Whether the node can match the empty text (Go's compile.go tracks it as frag.nullable).
    var isNullable: Bool {
        switch self {
        case .empty, .assertion: true
        case .literal, .set: false
        case .capture(let sub, _): sub.isNullable
        case .repetition(let sub, let min, _, _, _): min == 0 || sub.isNullable
        case .concatenation(let subs): subs.allSatisfy(\.isNullable)
        case .alternation(let subs): subs.contains(where: \.isNullable)
        }
    }

    /// Go's repeatIsValid (regexp/syntax parse.go): nested counted repetitions multiply to at
    /// most `budget` (1000), so `(a{1000}){1000}` is refused as RE2 refuses it.
    func repeatsFit(_ budget: Int) -> Bool {
        var budget = budget
        switch self {
        case .repetition(let sub, let min, let max, _, let counted):
            if counted {
                if max == 0 { return true }
                let most = max < 0 ? min : max
                if most > budget { return false }
                if most > 0 { budget /= most }
            }
            return sub.repeatsFit(budget)
        case .capture(let sub, _): return sub.repeatsFit(budget)
        case .concatenation(let subs), .alternation(let subs): return subs.allSatisfy { $0.repeatsFit(budget) }
        case .empty, .literal, .set, .assertion: return true
        }
    }
}

/// The empty-width assertions (Go's syntax.EmptyOp), ASCII word characters for `\b`.
enum Assertion: Sendable {
    case beginLine, endLine, beginText, endText, wordBoundary, notWordBoundary

    /// Whether it holds between `before` and `after` (-1 at either end of the text).
    func holds(before: Int32, after: Int32) -> Bool {
        switch self {
        case .beginLine: before < 0 || before == 0x0A
        case .endLine: after < 0 || after == 0x0A
        case .beginText: before < 0
        case .endText: after < 0
        case .wordBoundary: Self.isWord(before) != Self.isWord(after)
        case .notWordBoundary: Self.isWord(before) == Self.isWord(after)
        }
    }

    /// Go's syntax.IsWordChar: [0-9A-Za-z_].
    static func isWord(_ rune: Int32) -> Bool {
        (0x30...0x39).contains(rune) || (0x41...0x5A).contains(rune) || (0x61...0x7A).contains(rune) || rune == 0x5F
    }
}

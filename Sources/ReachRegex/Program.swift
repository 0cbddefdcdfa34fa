/// One step of a compiled pattern (Go's regexp/syntax Inst). A rune or set consumes one rune
/// and goes on to the next instruction; a split tries its first target before its second.
enum Instruction: Sendable {
    case rune(UInt32)
    case set(RuneSet)
    case split(Int, Int)
    case jump(Int)
    /// Records the position in a slot (2·group for its start, 2·group+1 for its end).
    case save(Int)
    case assert(Assertion)
    case match
}

/// A pattern compiled as Go's regexp/syntax compile.go compiles it, repetitions copied out
/// as its simplify.go writes them (`x{2,5}` is `xx(x(x(x)?)?)?`, `x{2,}` is `xx+`).
struct Program: Sendable {
    let instructions: [Instruction]
    let captureCount: Int
    let names: [String: Int]

    init(_ tree: Node, captures: Int, names: [String: Int]) {
        var compiler = Compiler()
        compiler.emit(tree)
        compiler.code.append(.match)
        instructions = compiler.code
        captureCount = captures
        self.names = names
    }
}

private struct Compiler {
    var code: [Instruction] = []

    mutating func emit(_ node: Node) {
        switch node {
        case .empty: break
        case .literal(let rune): code.append(.rune(rune))
        case .set(let set): code.append(.set(set))
        case .assertion(let assertion): code.append(.assert(assertion))
        case .capture(let sub, let index):
            code.append(.save(2 * index))
            emit(sub)
            code.append(.save(2 * index + 1))
        case .concatenation(let subs): for sub in subs { emit(sub) }
        case .alternation(let subs): alternation(subs)
        case .repetition(let sub, let min, let max, let greedy, _): repetition(sub, min: min, max: max, greedy: greedy)
        }
    }

    /// `a|b|c`: each alternative tried before the ones after it.
    private mutating func alternation(_ subs: [Node]) {
        var exits: [Int] = []
        for sub in subs.dropLast() {
            let split = code.count
            code.append(.split(split + 1, -1))
            emit(sub)
            exits.append(code.count)
            code.append(.jump(-1))
            code[split] = .split(split + 1, code.count)
        }
        if let last = subs.last { emit(last) }
        for exit in exits { code[exit] = .jump(code.count) }
    }

    private mutating func repetition(_ sub: Node, min: Int, max: Int, greedy: Bool) {
        switch (min, max) {
        case (0, -1) where sub.isNullable:
            // compile.go's star: a loop over what may match empty is x+ made optional, so that
            // the loop's priorities stay those of Go (its fix for `(|a)*`).
            optional(greedy: greedy) { $0.plus(sub, greedy: greedy) }
        case (0, -1): star(sub, greedy: greedy)
        case (_, -1):
            for _ in 1..<min { emit(sub) }
            plus(sub, greedy: greedy)
        default:
            for _ in 0..<min { emit(sub) }
            nestedOptional(sub, count: max - min, greedy: greedy)
        }
    }

    /// `(x(x(x)?)?)?`: every skip goes to the same end.
    private mutating func nestedOptional(_ sub: Node, count: Int, greedy: Bool) {
        var splits: [Int] = []
        for _ in 0..<count {
            splits.append(code.count)
            code.append(.split(-1, -1))
            emit(sub)
        }
        for split in splits { code[split] = greedy ? .split(split + 1, code.count) : .split(code.count, split + 1) }
    }

    private mutating func optional(greedy: Bool, _ body: (inout Compiler) -> Void) {
        let split = code.count
        code.append(.split(-1, -1))
        body(&self)
        code[split] = greedy ? .split(split + 1, code.count) : .split(code.count, split + 1)
    }

    mutating func plus(_ sub: Node, greedy: Bool) {
        let start = code.count
        emit(sub)
        code.append(greedy ? .split(start, code.count + 1) : .split(code.count + 1, start))
    }

    private mutating func star(_ sub: Node, greedy: Bool) {
        let start = code.count
        code.append(.split(-1, -1))
        emit(sub)
        code.append(.jump(start))
        code[start] = greedy ? .split(start + 1, code.count) : .split(code.count, start + 1)
    }
}

/// Go's reading of a pattern (regexp/syntax parse.go, with Perl's flags as regexp.Compile
/// sets them: `^`/`$` at the text's ends unless `m`, `.` without `\n` unless `s`, `\d\s\w`).
struct Parser {
    struct Flags { var foldCase = false, multiLine = false, dotAll = false, ungreedy = false }

    /// An open group: its alternatives so far, the current one's items, the flags to restore
    /// at its `)`, and its number when it captures.
    struct Frame {
        var alternatives: [Node] = []
        var items: [Node] = []
        var outerFlags: Flags
        var capture: Int?
    }

    /// RE2's bracketing characters, named by code point: written as character literals in
    /// the code that reads them, they would unbalance the bracket matching of editors and of
    /// line-counting tools, which take the code for one long function.
    enum Syntax {
        static let openParen = Unicode.Scalar(UInt8(0x28))
        static let closeParen = Unicode.Scalar(UInt8(0x29))
        static let openBracket = Unicode.Scalar(UInt8(0x5B))
        static let closeBracket = Unicode.Scalar(UInt8(0x5D))
        static let openBrace = Unicode.Scalar(UInt8(0x7B))
        static let closeBrace = Unicode.Scalar(UInt8(0x7D))
    }

    /// Go's maxHeight (regexp/syntax parse.go): groups nest at most 1000 deep.
    private static let maximumDepth = 1000
    /// Go's limit on a counted repetition (parse.go: "invalid repeat count").
    static let maximumRepeat = 1000

    let scalars: [Unicode.Scalar]
    var index = 0
    var flags = Flags()
    var frames: [Frame]
    /// Whether the last item came from a repetition operator (RE2 refuses `a**`).
    var lastRepeated = false
    private(set) var captureCount = 0
    private(set) var captureNames: [String: Int] = [:]

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
        frames = [Frame(outerFlags: Flags())]
    }

    var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
    func peek(_ offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }
    func text(_ range: Range<Int>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[range.clamped(to: 0..<scalars.count)])
        return text
    }

    mutating func parse() throws(RE2.Error) -> Node {
        while let scalar = current {
            let start = index
            index += 1
            var repeated = false
            switch scalar {
            case Syntax.openParen: try openGroup()
            case Syntax.closeParen: try closeGroup()
            case "|":
                let frame = frames.count - 1
                frames[frame].alternatives.append(Self.concatenation(frames[frame].items))
                frames[frame].items = []
            case "*", "+", "?":
                try repeatLast(min: scalar == "+" ? 1 : 0, max: scalar == "?" ? 1 : -1, counted: false, text: text(start..<index))
                repeated = true
            case Syntax.openBrace: repeated = try brace(start)
            case "^": push(.assertion(flags.multiLine ? .beginLine : .beginText))
            case "$": push(.assertion(flags.multiLine ? .endLine : .endText))
            case ".": push(.set(flags.dotAll ? .all : RuneSet(rune: 0x0A).negated))
            case Syntax.openBracket: push(.set(try characterClass(start)))
            case "\\": try escape()
            default: pushLiteral(scalar.value)
            }
            lastRepeated = repeated
        }
        guard frames.count == 1, let root = frames.popLast() else { throw RE2.Error("missing closing )") }
        return Self.alternation(root.alternatives + [Self.concatenation(root.items)])
    }

    mutating func push(_ node: Node) { frames[frames.count - 1].items.append(node) }

    /// A rune, or under `i` its case-folding orbit.
    mutating func pushLiteral(_ rune: UInt32) {
        guard flags.foldCase else { return push(.literal(rune)) }
        let orbit = RuneSet(rune: rune).folded
        push(orbit.ranges == [rune...rune] ? .literal(rune) : .set(orbit))
    }

    private static func concatenation(_ items: [Node]) -> Node {
        items.isEmpty ? .empty : items.count == 1 ? items[0] : .concatenation(items)
    }

    private static func alternation(_ alternatives: [Node]) -> Node {
        alternatives.count == 1 ? alternatives[0] : .alternation(alternatives)
    }

    mutating func openFrame(capture: Int?) throws(RE2.Error) {
        guard frames.count <= Self.maximumDepth else { throw RE2.Error("expression nests too deeply") }
        frames.append(Frame(outerFlags: flags, capture: capture))
    }

    private mutating func openGroup() throws(RE2.Error) {
        guard current == "?" else {
            captureCount += 1
            return try openFrame(capture: captureCount)
        }
        index += 1
        if current == "P", peek(1) == "<" { return try namedGroup() }
        try flagGroup()
    }

    private mutating func closeGroup() throws(RE2.Error) {
        guard frames.count > 1, let frame = frames.popLast() else { throw RE2.Error("unexpected ): missing opening (") }
        let body = Self.alternation(frame.alternatives + [Self.concatenation(frame.items)])
        flags = frame.outerFlags
        push(frame.capture.map { .capture(body, index: $0) } ?? body)
    }

    /// `(?P<name>re)`: a name of ASCII letters, digits and `_`, up to the first `>`.
    private mutating func namedGroup() throws(RE2.Error) {
        let start = index - 2
        index += 2
        guard let end = scalars[index...].firstIndex(of: ">") else {
            throw RE2.Error("invalid named capture: \(text(start..<scalars.count))")
        }
        let name = text(index..<end)
        let valid = !name.isEmpty && name.unicodeScalars.allSatisfy { $0 == "_" || Self.isAlphanumeric($0) }
        guard valid else { throw RE2.Error("invalid named capture: \(text(start..<(end + 1)))") }
        guard captureNames[name] == nil else { throw RE2.Error("duplicate capture group name: \(text(start..<(end + 1)))") }
        index = end + 1
        captureCount += 1
        captureNames[name] = captureCount
        try openFrame(capture: captureCount)
    }

    static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar) || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}

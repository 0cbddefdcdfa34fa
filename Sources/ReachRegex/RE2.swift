/// A regular expression in RE2 syntax, read and run as Go's `regexp` package does (Go 1.19,
/// the Go of blackbox_exporter 0.23): `regexp/syntax` parse.go reads the pattern, compile.go's
/// program shape is kept, and exec.go's Pike VM (a Thompson NFA simulation with thread
/// priorities) runs it in time linear in the text, leftmost-first, without backtracking.
///
/// The text is UTF-8 bytes read as Go reads them (`unicode/utf8`): a byte that starts no
/// valid sequence is U+FFFD of width 1. Positions are byte offsets into that text.
///
/// Immutable once compiled: threads may share one; each match keeps its state on its own.
public struct RE2: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    let program: Program

    /// Why a pattern is refused: Go's words where Go refuses it, ours where reach refuses
    /// what Go would take (Unicode script classes).
    public struct Error: Swift.Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        /// Control characters of the pattern quoted in the message are written as escapes, so
        /// that it stays one printable line.
        init(_ message: String) {
            var line = ""
            for scalar in message.unicodeScalars {
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    line += "\\x{" + String(scalar.value, radix: 16) + "}"
                } else {
                    line.unicodeScalars.append(scalar)
                }
            }
            self.message = line
        }
    }

    public init(_ pattern: String) throws(Error) {
        var parser = Parser(Array(pattern.unicodeScalars))
        let tree = try parser.parse()
        // Go refuses a program over its budget (regexp/syntax parse.go, checkSize: maxSize is
        // 128 MiB of 40-byte instructions), counted on the tree before any repetition is copied.
        guard tree.size <= Node.maximumSize else { throw Error("expression too large") }
        self.pattern = pattern
        program = Program(tree, captures: parser.captureCount, names: parser.captureNames)
    }

    public var description: String { pattern }

    /// The number of capture groups, the whole match (group 0) not counted.
    public var captureCount: Int { program.captureCount }

    /// Each named group's number.
    public var captureNames: [String: Int] { program.names }

    /// Whether the pattern matches anywhere in `text` (Go's MatchString).
    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { program.run(on: $0, captures: false) != nil }
    }

    /// Whether the pattern matches anywhere in `bytes`, read as Go reads UTF-8 (Go's Match).
    public func matches(utf8 bytes: some Collection<UInt8>) -> Bool {
        if let found = bytes.withContiguousStorageIfAvailable({ program.run(on: $0, captures: false) != nil }) { return found }
        return Array(bytes).withUnsafeBufferPointer { program.run(on: $0, captures: false) != nil }
    }

    /// The leftmost-first match in `text` and its groups (Go's FindStringSubmatchIndex): byte
    /// ranges in `text.utf8`, group 0 the whole match, nil for a group that took no part;
    /// nil when nothing matches.
    public func firstMatch(in text: String) -> [Range<Int>?]? {
        var text = text
        guard let slots = text.withUTF8({ program.run(on: $0, captures: true) }) else { return nil }
        return stride(from: 0, to: slots.count, by: 2).map { slots[$0] >= 0 && slots[$0 + 1] >= 0 ? slots[$0]..<slots[$0 + 1] : nil }
    }

    public static func == (lhs: RE2, rhs: RE2) -> Bool { lhs.pattern == rhs.pattern }
    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }
}

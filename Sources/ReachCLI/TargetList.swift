import ReachSystem

/// The targets of one run: the operands, then the lines of `--targets-from FILE` (`-`:
/// standard input). One target a line; blank lines and `#` comments are skipped, as fping's
/// `-f` skips them. Every fault is a usage error found before anything is looked up or sent.
enum TargetList {
    /// More targets than this in one run are refused: fping's `-g` limit, and what one ICMP
    /// sequence space (16 bits) can tell apart.
    static let maximumTargets = 65_536
    /// A file longer than this cannot hold a valid list (65,536 lines of at most 253 bytes).
    static let maximumFileBytes = 17 * 1024 * 1024

    /// The targets `operands` and `file` name, in that order; at least one.
    static func collect(_ operands: [String], from file: String?) throws -> [String] {
        var targets = operands
        if let file {
            let name = file == "-" ? "standard input" : PrintableText.escaped(file)
            switch FileContents.read(file, limit: maximumFileBytes) {
            case .failure(let errno) where errno == .fileTooLarge:
                throw UsageError("--targets-from \(name): more than \(maximumTargets) targets")
            case .failure(let errno):
                throw UsageError("--targets-from \(name): \(errno)")
            case .success(let bytes):
                try targets += lines(bytes, source: name, room: maximumTargets - targets.count)
                if targets.count == operands.count { throw UsageError("--targets-from \(name): no targets in it") }
            }
        }
        guard !targets.isEmpty else { throw UsageError("no target given (name one, or --targets-from FILE)") }
        guard targets.count <= maximumTargets else { throw UsageError("more than \(maximumTargets) targets") }
        return targets
    }

    /// The targets in a file's bytes, at most `room` of them.
    static func lines(_ bytes: [UInt8], source: String, room: Int) throws -> [String] {
        var targets: [String] = []
        var lineNumber = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            // Up to a comment, without the blanks around it (and a CRLF file's CR).
            var text = line[...]
            if let hash = text.firstIndex(of: UInt8(ascii: "#")) { text = text[..<hash] }
            while let first = text.first, isBlank(first) { text = text.dropFirst() }
            while let last = text.last, isBlank(last) { text = text.dropLast() }
            if text.isEmpty { continue }
            guard let target = String(validating: text, as: UTF8.self) else {
                throw UsageError("--targets-from \(source): line \(lineNumber) is not valid UTF-8")
            }
            guard !text.contains(where: isBlank) else {
                throw UsageError("--targets-from \(source): line \(lineNumber): one target a line: '\(PrintableText.escaped(target))'")
            }
            guard targets.count < room else { throw UsageError("--targets-from \(source): more than \(maximumTargets) targets") }
            targets.append(target)
        }
        return targets
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }
}

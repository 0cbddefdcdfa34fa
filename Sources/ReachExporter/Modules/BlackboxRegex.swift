import ReachSystem

/// A regular expression as blackbox_exporter takes it: Go's regexp (RE2 syntax, Perl flags;
/// `regexp/syntax` doc.go), run with Swift's Regex. The pattern is read as Go reads it and
/// written again in Swift's dialect, so that it means what it meant there:
/// - `.` is any character but `\n` (Swift's excludes every line ending); `$` without `m` is the
///   end of the text (Swift's also matches before a final newline), with `m` before `\n`;
/// - `\d`, `\s`, `\w` and `[[:alpha:]]`... are ASCII, `\s` without `\v` (Swift's are Unicode);
///   `\b` is an ASCII word boundary; `\v` is the character 0x0B (in Swift, a class);
/// - `{` that is not a repetition, and `&`, `~`, `[`, `-` inside a class, are literal (in
///   Swift `a{,2}` repeats and `[a&&b]` intersects);
/// - matching goes by Unicode scalars, as Go goes by runes (Swift's by characters).
/// What RE2 refuses is refused with its reason: backreferences, lookaround, atomic groups,
/// possessive and nested repetitions, `\Z`, `(?<name>` (Go 1.19's regexp takes only
/// `(?P<name>`), flags other than i, m, s and U, repetition counts over 1000.
public struct BlackboxRegex: Hashable, Sendable, CustomStringConvertible {
    /// The pattern as the configuration wrote it.
    public let pattern: String
    /// The same in Swift's dialect.
    public let swiftPattern: String
    nonisolated(unsafe) public let regex: Regex<AnyRegexOutput>

    public struct Failure: Error, Equatable, Sendable {
        public var message: String
    }

    public init(_ pattern: String) throws(Failure) {
        var translation = Translation(Array(pattern.unicodeScalars))
        try translation.run()
        self.pattern = pattern
        swiftPattern = translation.output
        do {
            regex = try Regex(swiftPattern).matchingSemantics(.unicodeScalar).wordBoundaryKind(.simple).asciiOnlyCharacterClasses()
        } catch {
            throw Failure(message: "not a regular expression Swift accepts: \(error)")
        }
    }

    public var description: String { pattern }

    /// Whether the pattern matches anywhere in `text` (Go's MatchString).
    public func matches(_ text: String) -> Bool {
        (try? regex.firstMatch(in: text)) != nil
    }

    public static func == (lhs: BlackboxRegex, rhs: BlackboxRegex) -> Bool { lhs.pattern == rhs.pattern }
    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }
}

extension BlackboxRegex {
    /// Go's reading of a pattern, written out in Swift's dialect as it goes.
    struct Translation {
        private enum Last { case none, atom, anchor, repeated }

        private struct Flags { var multiLine = false, dotAll = false }

        let scalars: [Unicode.Scalar]
        var index = 0
        private(set) var output = ""
        /// Where the last atom's text starts in `output`, to wrap an anchor that is repeated.
        private var lastStart: String.Index
        private var last = Last.none
        private var flags = Flags()
        private var groups: [Flags] = []

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
            lastStart = output.endIndex
        }

        func refuse(_ message: String) -> Failure { Failure(message: message) }

        var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
        func peek(_ offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }

        mutating func run() throws(Failure) {
            while let scalar = current {
                index += 1
                switch scalar {
                case "(": try openGroup()
                case ")":
                    guard let outer = groups.popLast() else { throw refuse("unexpected ): missing opening (") }
                    flags = outer
                    output += ")"
                    last = .atom
                case "|":
                    output += "|"
                    last = .none
                case "*", "+", "?": try repeatLast(String(scalar))
                case "{": try brace()
                case "^": anchor(flags.multiLine ? "(?m:^)" : "\\A")
                case "$": anchor(flags.multiLine ? "(?=\\n|\\z)" : "\\z")
                case ".": atom(flags.dotAll ? "[\\s\\S]" : "[^\\n]")
                case "[": try characterClass()
                case "\\": try escape()
                default: atom(Self.literal(scalar))
                }
            }
            if !groups.isEmpty { throw refuse("missing closing )") }
        }

        mutating func atom(_ text: String) {
            lastStart = output.endIndex
            output += text
            last = .atom
        }

        mutating func anchor(_ text: String) {
            atom(text)
            last = .anchor
        }

        private mutating func openGroup() throws(Failure) {
            guard current == "?" else {
                groups.append(flags)
                output += "("
                last = .none
                return
            }
            index += 1
            if current == "P", peek(1) == "<" {
                index += 2
                var name = ""
                while let scalar = current, scalar != ">" {
                    guard scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" else {
                        throw refuse("invalid named capture: (?P<\(name)\(scalar)")
                    }
                    name.unicodeScalars.append(scalar)
                    index += 1
                }
                guard current == ">", !name.isEmpty else { throw refuse("invalid named capture: (?P<\(name)") }
                index += 1
                groups.append(flags)
                output += "(?P<\(name)>"
                last = .none
                return
            }
            try flagGroup()
        }

        /// `(?flags)` or `(?flags:re)`, flags among i, m, s and U, a `-` before those turned off.
        private mutating func flagGroup() throws(Failure) {
            var text = ""
            var negated = false
            var changed = flags
            while let scalar = current, scalar != ")" && scalar != ":" {
                switch scalar {
                case "i", "U": break
                case "m": changed.multiLine = !negated
                case "s": changed.dotAll = !negated
                case "-" where !negated: negated = true
                default: throw refuse(Self.unsupportedGroup(scalar, next: peek(1)))
                }
                text.unicodeScalars.append(scalar)
                index += 1
            }
            guard let end = current, !text.isEmpty, text.last != "-" else {
                throw refuse(current == nil ? "missing closing )" : "missing flags: (?\(text)\(current.map(String.init) ?? "")")
            }
            index += 1
            // m and s are carried out here; i and U stay for Swift, which reads them alike.
            let kept = String(text.unicodeScalars.filter { $0 == "i" || $0 == "U" || $0 == "-" })
            let swiftFlags = kept.allSatisfy { $0 == "-" } ? "" : kept.hasSuffix("-") ? String(kept.dropLast()) : kept
            if end == ":" {
                groups.append(flags)
                output += swiftFlags.isEmpty ? "(?:" : "(?\(swiftFlags):"
            } else if !swiftFlags.isEmpty {
                output += "(?\(swiftFlags))"
            }
            flags = changed
            last = .none
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

        /// `*`, `+`, `?` or a counted repetition of the last atom, then `?` for the lazy form.
        private mutating func repeatLast(_ operator: String) throws(Failure) {
            switch last {
            case .none: throw refuse("missing argument to repetition operator: \(`operator`)")
            case .repeated: throw refuse("invalid nested repetition operator: \(`operator`) (RE2 has no possessive repetition)")
            case .anchor:
                // Go repeats an anchor; Swift refuses to. Repeated, it is the same anchor.
                output.insert(contentsOf: "(?:", at: lastStart)
                output += ")"
            case .atom: break
            }
            output += `operator`
            if current == "?" {
                index += 1
                output += "?"
            }
            last = .repeated
        }

        /// `{n}`, `{n,}` or `{n,m}` (n, m at most 1000) repeats; any other `{` is literal, as in Go.
        private mutating func brace() throws(Failure) {
            var end = index
            var text = ""
            while end < scalars.count, scalars[end] != "}", text.count <= 12 {
                text.unicodeScalars.append(scalars[end])
                end += 1
            }
            let parts = text.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
            let isDigits = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }
            guard end < scalars.count, let first = parts.first, isDigits(first),
                parts.count == 1 || parts[1].isEmpty || isDigits(parts[1])
            else {
                atom("\\{")
                return
            }
            let low = Int(first) ?? Int.max
            let high = parts.count == 1 ? low : parts[1].isEmpty ? nil : Int(parts[1]) ?? Int.max
            guard low <= 1000, (high ?? 0) <= 1000, low <= (high ?? low) else { throw refuse("invalid repeat count: {\(text)}") }
            index = end + 1
            try repeatLast("{\(text)}")
        }

        /// A scalar outside a class, written so that Swift reads it as itself.
        static func literal(_ scalar: Unicode.Scalar) -> String {
            if scalar.value < 0x20 || scalar.value == 0x7F { return "\\x{\(String(scalar.value, radix: 16))}" }
            if scalar.isASCII && !scalar.properties.isAlphabetic && !("0"..."9").contains(scalar) && scalar != " " && scalar != "_" {
                return "\\" + String(scalar)
            }
            return String(scalar)
        }
    }
}

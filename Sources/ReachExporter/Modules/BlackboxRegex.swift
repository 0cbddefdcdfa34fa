import ReachRegex

/// A regular expression as blackbox_exporter takes it: Go's regexp (RE2 syntax, Perl flags;
/// `regexp/syntax` doc.go), read and run by ReachRegex as Go reads and runs it: `.` is any
/// rune but `\n`, `$` without `m` the end of the text, `\d\s\w` and `\b` ASCII, leftmost-first
/// alternation, time linear in the text. What RE2 refuses is refused with its reason:
/// backreferences, lookaround, atomic groups, possessive and nested repetitions, `\Z`,
/// `(?<name>` (Go 1.19 takes only `(?P<name>`), flags other than i, m, s and U, repetition
/// counts over 1000; and Unicode script classes (`\p{Greek}`), which reach cannot tell.
public struct BlackboxRegex: Hashable, Sendable, CustomStringConvertible {
    /// The compiled pattern.
    public let regex: RE2

    public struct Failure: Error, Equatable, Sendable {
        public var message: String
    }

    public init(_ pattern: String) throws(Failure) {
        do {
            regex = try RE2(pattern)
        } catch {
            throw Failure(message: error.message)
        }
    }

    /// The pattern as the configuration wrote it.
    public var pattern: String { regex.pattern }

    public var description: String { pattern }

    /// Whether the pattern matches anywhere in `text` (Go's MatchString).
    public func matches(_ text: String) -> Bool { regex.matches(text) }

    /// Whether the pattern matches anywhere in `bytes` read as UTF-8 the way Go reads it, a
    /// byte of no valid sequence one U+FFFD (Go's Match, on an HTTP body).
    public func matches(utf8 bytes: some Collection<UInt8>) -> Bool { regex.matches(utf8: bytes) }
}

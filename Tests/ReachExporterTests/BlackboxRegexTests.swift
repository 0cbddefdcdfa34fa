import XCTest

@testable import ReachExporter

/// Go's RE2 dialect, matched with Swift's Regex: what Go matches, Swift matches; what Go
/// refuses, or what Swift would read otherwise, is refused with RE2's reason.
final class BlackboxRegexTests: XCTestCase {
    private func refusal(_ pattern: String) -> String? {
        do {
            _ = try BlackboxRegex(pattern)
            return nil
        } catch {
            return error.message
        }
    }

    private func assertMatches(
        _ pattern: String, _ yes: [String], not no: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let regex = try BlackboxRegex(pattern)
        for text in yes { XCTAssertTrue(regex.matches(text), "\(pattern) should match \(text.debugDescription)", file: file, line: line) }
        for text in no {
            XCTAssertFalse(regex.matches(text), "\(pattern) should not match \(text.debugDescription)", file: file, line: line)
        }
    }

    /// Where Swift's defaults differ from Go's, the translation keeps Go's meaning.
    func testGoMeanings() throws {
        try assertMatches("^ok$", ["ok"], not: ["ok\n", "x\nok"])
        try assertMatches("(?m)^ok$", ["x\nok\ny", "ok"], not: ["okk"])
        try assertMatches("a.c", ["abc", "a\rc", "a\u{301}c"], not: ["a\nc"])
        try assertMatches("(?s)a.c", ["a\nc"], not: [])
        try assertMatches(#"^\d+$"#, ["0123"], not: ["١٢٣"])
        try assertMatches(#"^\s$"#, [" ", "\t", "\n", "\r", "\u{0C}"], not: ["\u{0B}", "\u{A0}"])
        try assertMatches(#"^\w+$"#, ["a_1"], not: ["é"])
        try assertMatches(#"\bcat\b"#, ["a cat!"], not: ["cats"])
        try assertMatches(#"^\v$"#, ["\u{0B}"], not: ["\n"])
        try assertMatches("a{,2}", ["a{,2}"], not: ["aa"])
        try assertMatches("x{2}", ["xx"], not: ["x"])
        try assertMatches("[a&&b]", ["&"], not: [])
        try assertMatches("[[a]", ["["], not: [])
        try assertMatches("[]a]", ["]"], not: ["b"])
        try assertMatches("[^]a]", ["b"], not: ["]", "a"])
        try assertMatches("[a-c-e]", ["-", "e", "b"], not: ["d"])
        try assertMatches("[[:alpha:]]+[[:^digit:]]", ["ab-"], not: ["a1"])
        try assertMatches(#"[\d\S]"#, ["5", "x"], not: [" "])
        try assertMatches(#"\Qa.b\E"#, ["a.b"], not: ["axb"])
        try assertMatches(#"\x41\x{42}\101\0"#, ["ABA\u{0}"], not: [])
        try assertMatches(#"\pL\p{Greek}"#, ["aα"], not: ["ab"])
        try assertMatches("(?P<word>ab)+", ["abab"], not: ["ba"])
        try assertMatches("(?i)abc", ["ABC"], not: [])
        try assertMatches("(?U)a+b", ["aab"], not: [])
        try assertMatches("^+OK", ["OK"], not: ["+OK"])
        try assertMatches("\u{E9}", ["\u{E9}"], not: ["e\u{301}"])
        try assertMatches("[[:word]]", [":]", "w]"], not: ["w"])
    }

    /// What Go's regexp (RE2) refuses, with its reason.
    func testRE2Refusals() {
        let refused: [(String, String)] = [
            (#"(a)\1"#, #"RE2 has no backreference \1"#),
            ("a(?=b)", "RE2 has no lookahead (?="),
            ("a(?!b)", "RE2 has no lookahead (?!"),
            ("(?<=a)b", "RE2 has no lookbehind (?<="),
            ("(?<!a)b", "RE2 has no lookbehind (?<!"),
            ("(?<name>a)", "Go's regexp takes named groups as (?P<name>re), not (?<name>re)"),
            ("(?>a)", "RE2 has no atomic group (?>"),
            ("(?x)a b", "RE2 does not accept (?x: flags are i, m, s and U"),
            ("a++", "invalid nested repetition operator: + (RE2 has no possessive repetition)"),
            ("a**", "invalid nested repetition operator: * (RE2 has no possessive repetition)"),
            (#"a\Z"#, #"RE2 has no \Z: \z is the end of the text"#),
            ("*a", "missing argument to repetition operator: *"),
            ("a{1001}", "invalid repeat count: {1001}"),
            ("a{3,2}", "invalid repeat count: {3,2}"),
            ("(a", "missing closing )"),
            ("a)", "unexpected ): missing opening ("),
            ("[a", "missing closing ]"),
            ("[z-a]", "invalid character class range: z-a"),
            (#"\q"#, #"invalid escape sequence: \q"#),
            ("a\\", "trailing backslash at end of expression"),
            ("[[:foo:]]", "invalid character class range: [:foo:]"),
        ]
        for (pattern, message) in refused { XCTAssertEqual(refusal(pattern), message, pattern) }
    }

    func testEqualityIsThePattern() throws {
        XCTAssertEqual(try BlackboxRegex("a+"), try BlackboxRegex("a+"))
        XCTAssertNotEqual(try BlackboxRegex("a+"), try BlackboxRegex("a*"))
        XCTAssertEqual(try BlackboxRegex("a$").swiftPattern, #"a\z"#)
    }
}

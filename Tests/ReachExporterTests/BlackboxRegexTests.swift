import XCTest

@testable import ReachExporter
@testable import ReachRegex

/// Go's regexp (RE2), as ReachRegex reads and runs it: each answer below is Go 1.19's
/// (regexp.FindStringSubmatchIndex, MatchString), the side-by-side test beside
/// blackbox_exporter holding the same patterns to Go itself.
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

    /// Where Go's regexp differs from Perl's or Swift's, Go's meaning.
    func testGoMeanings() throws {
        try assertMatches("^ok$", ["ok"], not: ["ok\n", "x\nok"])
        try assertMatches("(?m)^ok$", ["x\nok\ny", "ok"], not: ["okk"])
        try assertMatches("a.c", ["abc", "a\rc", "a\u{301}c"], not: ["a\nc"])
        try assertMatches("(?s)a.c", ["a\nc"], not: [])
        try assertMatches(#"^\d+$"#, ["0123"], not: ["١٢٣"])
        try assertMatches(#"^\s$"#, [" ", "\t", "\n", "\r", "\u{0C}"], not: ["\u{0B}", "\u{A0}"])
        try assertMatches(#"^\w+$"#, ["a_1"], not: ["é"])
        try assertMatches(#"\bcat\b"#, ["a cat!", "écatü"], not: ["cats"])
        try assertMatches(#"\Bat"#, ["cat"], not: ["at"])
        try assertMatches(#"^\v$"#, ["\u{0B}"], not: ["\n"])
        try assertMatches("a{,2}", ["a{,2}"], not: ["aa"])
        try assertMatches("a{01}", ["a{01}"], not: ["a"])
        try assertMatches("^a{1,9999999999}$", ["aaa"], not: [""])
        try assertMatches("x{2}", ["xx"], not: ["x"])
        try assertMatches("^x{2,}$", ["xx", "xxxx"], not: ["x"])
        try assertMatches("^x{1,3}$", ["x", "xxx"], not: ["xxxx"])
        try assertMatches("[a&&b]", ["&"], not: [])
        try assertMatches("[[a]", ["["], not: [])
        try assertMatches("[]a]", ["]"], not: ["b"])
        try assertMatches("[^]a]", ["b", "\n"], not: ["]", "a"])
        try assertMatches("[a-c-e]", ["-", "e", "b"], not: ["d"])
        try assertMatches("[[:alpha:]]+[[:^digit:]]", ["ab-"], not: ["a1"])
        try assertMatches(#"[\d\S]"#, ["5", "x"], not: [" "])
        try assertMatches(#"\Qa.b\E"#, ["a.b"], not: ["axb"])
        try assertMatches(#"\Qa.b"#, ["a.b"], not: ["axb"])
        try assertMatches(#"\x41\x{42}\101\0\12"#, ["ABA\u{0}\n"], not: [])
        try assertMatches(#"\a\f\t\n\r\v\.\-"#, ["\u{07}\u{0C}\t\n\r\u{0B}.-"], not: [])
        try assertMatches(#"^\pL\p{Lu}\PN\p{^L}\p{Any}$"#, ["aΑβ1\u{10FFFF}"], not: ["aαβ1x", "aΑ11x"])
        try assertMatches(#"^[\p{Nd}\pZ]+$"#, ["٣ 1\u{2028}"], not: ["a"])
        try assertMatches("(?P<word>ab)+", ["abab"], not: ["ba"])
        try assertMatches("^+OK", ["OK"], not: ["+OK"])
        try assertMatches("\u{E9}", ["\u{E9}"], not: ["e\u{301}"])
        try assertMatches("[[:word]]", [":]", "w]"], not: ["w"])
        try assertMatches("a||b", ["", "x"], not: [])
        try assertMatches("(?i)x(?-i)y", ["Xy"], not: ["XY"])
        try assertMatches("(?i:x)y", ["Xy"], not: ["XY"])
        try assertMatches("((?i)x)y", ["Xy"], not: ["XY"])
        try assertMatches("(?s:.)(?m:$)\nx", ["\n\nx"], not: ["\nx"])
    }

    /// Case folding by Unicode's simple folding, as Go's unicode.SimpleFold orbits.
    func testCaseFolding() throws {
        try assertMatches("(?i)abc", ["ABC", "aBc"], not: ["ab"])
        try assertMatches("(?i)k", ["K", "k", "\u{212A}"], not: [])
        try assertMatches("(?i)\u{212A}", ["K", "k"], not: [])
        try assertMatches("(?i)s", ["S", "\u{17F}"], not: [])
        try assertMatches("(?i)σ", ["Σ", "ς"], not: [])
        try assertMatches("(?i)[k-l]", ["\u{212A}", "L"], not: ["m"])
        try assertMatches("(?i)[^k]", ["x"], not: ["K", "k", "\u{212A}"])
        try assertMatches("(?i)[[:upper:]]", ["a"], not: ["1"])
        try assertMatches("(?i)ǆ", ["Ǆ", "ǅ"], not: [])
        try assertMatches("(?i)i", ["I"], not: ["\u{131}", "\u{130}"])
        try assertMatches("(?i)é", ["É"], not: ["E"])
    }

    /// Leftmost-first submatch positions (byte offsets), as Go's FindStringSubmatchIndex.
    func testSubmatchPositions() throws {
        let table: [(String, String, [Range<Int>?]?)] = [
            ("a|ab", "ab", [0..<1]),
            ("ab|a", "ab", [0..<2]),
            ("a+", "aaa", [0..<3]),
            ("a+?", "aaa", [0..<1]),
            ("(?U)a+", "aaa", [0..<1]),
            ("(?U)a+?", "aaa", [0..<3]),
            ("a{1,2}?", "aa", [0..<1]),
            ("a*", "baaa", [0..<0]),
            ("(a*)+", "b", [0..<0, 0..<0]),
            ("(a+|b+)*c", "abc", [0..<3, 1..<2]),
            ("(a|ab)(c|bcd)(d*)", "abcd", [0..<4, 0..<1, 1..<4, 4..<4]),
            ("(a)|b", "b", [0..<1, nil]),
            ("(?P<year>\\d{4})-(\\d+)", "on 2024-05", [3..<10, 3..<7, 8..<10]),
            ("\\pL+", "αβ1", [0..<4]),
            ("x\\b", "xé", [0..<1]),
            ("(?m)^b$", "a\nb\nc", [2..<3]),
            ("\\Qa.b\\E+", "a.bb", [0..<4]),
            ("", "", [0..<0]),
            ("^abc$", "abc\n", nil),
            ("(?i)k", "\u{212A}", [0..<3]),
        ]
        for (pattern, text, expected) in table {
            let found = try BlackboxRegex(pattern).regex.firstMatch(in: text)
            XCTAssertEqual(found, expected, "\(pattern) in \(text.debugDescription)")
        }
    }

    /// Bytes that are not UTF-8 are each one U+FFFD, as Go's utf8.DecodeRune reads them.
    func testInvalidUTF8() throws {
        let cases: [(String, [UInt8], Bool)] = [
            ("^.$", [0xFF], true),
            ("^..$", [0xFF, 0xFE], true),
            ("^.$", [0xE2, 0x82], false),
            ("^..$", [0xE2, 0x82], true),
            ("^\u{FFFD}$", [0x80], true),
            ("^.$", [0xC0, 0xAF], false),
            ("^.$", [0xED, 0xA0, 0x80], false),
            ("^.$", [0xF4, 0x90, 0x80, 0x80], false),
            ("^.$", [0xE2, 0x82, 0xAC], true),
            ("ok", [0xFF, 0x6F, 0x6B, 0xFE], true),
        ]
        for (pattern, bytes, expected) in cases {
            XCTAssertEqual(try BlackboxRegex(pattern).matches(utf8: bytes), expected, "\(pattern) in \(bytes)")
        }
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
            ("(?i-)a", "invalid or unsupported Perl syntax: (?i-)"),
            ("a++", "invalid nested repetition operator: + (RE2 has no possessive repetition)"),
            ("a**", "invalid nested repetition operator: * (RE2 has no possessive repetition)"),
            ("a{2}*", "invalid nested repetition operator: * (RE2 has no possessive repetition)"),
            (#"a\Z"#, #"RE2 has no \Z: \z is the end of the text"#),
            (#"a\C"#, #"invalid escape sequence: \C"#),
            ("*a", "missing argument to repetition operator: *"),
            ("a|?", "missing argument to repetition operator: ?"),
            ("a{1001}", "invalid repeat count: {1001}"),
            ("a{3,2}", "invalid repeat count: {3,2}"),
            ("(a{1000}){1000}", "invalid repeat count: {1000}"),
            ("((a{1000}){1000}){1000}", "invalid repeat count: {1000}"),
            ("(?:" + String(repeating: "a", count: 4000) + "){1000}", "expression too large"),
            (String(repeating: "(", count: 1001) + String(repeating: ")", count: 1001), "expression nests too deeply"),
            ("(a", "missing closing )"),
            ("a)", "unexpected ): missing opening ("),
            ("[a", "missing closing ]: [a"),
            ("[z-a]", "invalid character class range: z-a"),
            (#"\q"#, #"invalid escape sequence: \q"#),
            (#"\xZ1"#, #"invalid escape sequence: \xZ1"#),
            (#"\x{110000}"#, #"invalid escape sequence: \x{110000"#),
            ("(?\n)", #"RE2 does not accept (?\x{a}: flags are i, m, s and U"#),
            ("a\\", "trailing backslash at end of expression"),
            ("[[:foo:]]", "invalid character class range: [:foo:]"),
            (#"\p{Foo}"#, #"invalid character class range: \p{Foo}"#),
            (#"\p{Greek}"#, #"reach-exporter does not support Unicode script classes: \p{Greek}"#),
            ("(?P<a-b>x)", "invalid named capture: (?P<a-b>"),
            ("(?P<n>a)(?P<n>b)", "duplicate capture group name: (?P<n>"),
        ]
        for (pattern, message) in refused { XCTAssertEqual(refusal(pattern), message, String(pattern.prefix(40))) }
    }

    /// RE2 runs in time linear in the text: the patterns a backtracking engine takes
    /// exponential time over come back within a bound that is about not hanging.
    func testPathologicalPatternsEndInLinearTime() throws {
        let cases: [(String, String)] = [("(a*)*b", "a"), ("(x+x+)+y", "x"), ("(a|aa)+$", "a"), ("(.*a){10}", "a")]
        for (pattern, letter) in cases {
            let body = String(repeating: letter, count: 64 * 1024) + "!"
            let regex = try BlackboxRegex(pattern)
            let clock = ContinuousClock()
            let start = clock.now
            let matched = regex.matches(body)
            XCTAssertLessThan(clock.now - start, .seconds(5), pattern)
            XCTAssertEqual(matched, pattern == "(.*a){10}", pattern)
        }
    }

    func testEqualityIsThePattern() throws {
        XCTAssertEqual(try BlackboxRegex("a+"), try BlackboxRegex("a+"))
        XCTAssertNotEqual(try BlackboxRegex("a+"), try BlackboxRegex("a*"))
        XCTAssertEqual(try BlackboxRegex("a$").pattern, "a$")
    }
}

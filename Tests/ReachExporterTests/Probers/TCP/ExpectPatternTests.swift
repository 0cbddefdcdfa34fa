import XCTest

@testable import ReachExporter
@testable import ReachExporterProbes

/// query_response's patterns: matched anywhere in a line, their groups put into the next
/// line sent as Go's regexp.Expand puts them.
final class ExpectPatternTests: XCTestCase {
    /// As the tcp prober builds it: the file's RE2 pattern through BlackboxRegex.
    private func pattern(_ source: String) throws -> ExpectPattern {
        ExpectPattern(try BlackboxRegex(source).regex)
    }

    func testExpandAsGo() throws {
        let expect = try pattern("^220 (?P<host>[^ ]+) (ESMTP)(x)?")
        let match = try XCTUnwrap(expect.firstMatch(in: "220 mail.lab ESMTP ready"))
        let cases: [(template: String, expanded: String)] = [
            ("EHLO ${1}", "EHLO mail.lab"), ("EHLO $1", "EHLO mail.lab"), ("${host}/${2}", "mail.lab/ESMTP"),
            ("$host.", "mail.lab."),
            ("$1x", ""),  // the group named "1x", which does not exist
            ("${1}x", "mail.labx"), ("$$1", "$1"), ("${3}", ""),  // a group that took no part
            ("$9", ""), ("$01", ""),  // out of range; a leading zero is no number
            ("${0}", "220 mail.lab ESMTP"), ("cost: $", "cost: $"), ("${1", "${1"), ("${}", "${}"), ("$-", "$-"),
            ("no references", "no references"),
        ]
        for (template, expanded) in cases {
            XCTAssertEqual(expect.expand(template, with: match), expanded, template)
        }
    }

    func testMatchesAnywhereInTheLine() throws {
        let expect = try pattern("ESMTP")
        XCTAssertNotNil(expect.firstMatch(in: "220 mail.lab ESMTP ready"))
        XCTAssertNil(expect.firstMatch(in: "220 mail.lab SMTP ready"))
        XCTAssertNotNil(try pattern("").firstMatch(in: "anything"))
        XCTAssertThrowsError(try pattern("(unclosed"))
        XCTAssertNil(try pattern("x$").firstMatch(in: "x\n"), "$ is the end of the text, as in Go")
        XCTAssertEqual(try pattern("a+"), try pattern("a+"))
    }
}

import XCTest
@testable import ReachCore
import ReachSystem

final class HostNameTests: XCTestCase {
    private func problem(_ name: String) -> HostName.Problem? {
        do {
            try HostName.validate(name)
            return nil
        } catch {
            return error
        }
    }

    func testNamesGetaddrinfoMayAccept() {
        let label63 = String(repeating: "a", count: 63)
        let name253 = [label63, label63, label63, String(repeating: "b", count: 61)].joined(separator: ".")
        XCTAssertEqual(name253.count, 253)
        for name in ["localhost", "db.internal", "example.com.", "_sip._tcp.example", "-odd-.example",
                     "bücher.example", "198.18.0.2", "fe80::1%eth0", "::1", label63, name253, name253 + "."] {
            XCTAssertNil(problem(name), name)
        }
    }

    func testEmptyAndEmptyLabels() {
        XCTAssertEqual(problem(""), .empty)
        for name in [".", "a..b", ".a", "a.b..", ".."] {
            XCTAssertEqual(problem(name), .emptyLabel, name)
        }
    }

    func testTooLong() {
        let label63 = String(repeating: "a", count: 63)
        let name254 = [label63, label63, label63, String(repeating: "b", count: 62)].joined(separator: ".")
        XCTAssertEqual(problem(name254), .tooLong(254))
        XCTAssertEqual(problem(name254 + "."), .tooLong(254), "the root dot does not count, the rest does")
        XCTAssertEqual(problem(String(repeating: "a", count: 64) + ".example"), .labelTooLong(String(repeating: "a", count: 64)))
    }

    func testLongNameWithAColonIsStillTooLong() {
        // A colon marks an IPv6 literal, which is never longer than 45 characters plus a zone:
        // a 300-character "name" with a colon in it is too long all the same.
        let name = "a:" + String(repeating: "b", count: 300)
        XCTAssertEqual(problem(name), .tooLong(302))
    }

    func testInvalidCharacters() {
        XCTAssertEqual(problem("has space.example"), .invalidCharacter("a space"))
        XCTAssertEqual(problem("tab\there"), .invalidCharacter("a control character"))
        XCTAssertEqual(problem("nul\u{0}"), .invalidCharacter("a control character"))
        XCTAssertEqual(problem("del\u{7f}"), .invalidCharacter("a control character"))
        XCTAssertEqual(problem("line\nbreak"), .invalidCharacter("a control character"))
        XCTAssertEqual(problem("bad\u{FFFD}utf8"), .invalidCharacter("bytes that are not valid UTF-8"))
    }

    func testProblemsSayWhatIsWrong() {
        XCTAssertEqual(HostName.Problem.empty.description, "empty host name")
        XCTAssertEqual(HostName.Problem.tooLong(300).description, "host name is 300 characters long, more than 253")
        XCTAssertEqual(HostName.Problem.labelTooLong(String(repeating: "x", count: 70)).description,
                       "host name label 'xxxxxxxxxxxxxxxxxxxx...' is longer than 63 characters")
        XCTAssertEqual(HostName.Problem.invalidCharacter("a space").description, "host name contains a space")
    }
}

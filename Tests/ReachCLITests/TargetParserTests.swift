import XCTest

@testable import ReachCLI
import ReachSystem

final class TargetParserTests: XCTestCase {
    func testPrintableEscapesControlCharactersUnambiguously() {
        XCTAssertEqual(TargetParser.printable("db\ninternal"), #"db\x0ainternal"#)
        XCTAssertEqual(TargetParser.printable("a\u{1}b"), #"a\x01b"#, "not a\\x1b, which reads as ESC")
        XCTAssertEqual(TargetParser.printable("a\u{1b}"), #"a\x1b"#)
        XCTAssertEqual(TargetParser.printable("del\u{7f}"), #"del\x7f"#)
        XCTAssertEqual(TargetParser.printable("café"), "café")
    }

    func testPrintableCutsLongText() {
        let long = String(repeating: "a", count: 81)
        XCTAssertEqual(TargetParser.printable(long), String(repeating: "a", count: 80) + "...")
        XCTAssertEqual(TargetParser.printable(String(repeating: "a", count: 80)), String(repeating: "a", count: 80))
    }
}

extension TargetParserTests {
    /// A long probe spec is cut in its quote, not at the end of the line: the reason stays.
    func testProbeErrorKeepsItsReasonAfterALongSpec() {
        let spec = "http://" + String(repeating: "a", count: 300) + " b/"
        XCTAssertThrowsError(try TargetParser.probe(spec)) { error in
            let message = (error as? UsageError)?.message ?? ""
            XCTAssertTrue(message.hasSuffix("...' has an invalid host"), message)
            XCTAssertLessThan(message.count, 140, message)
        }
        XCTAssertThrowsError(try TargetParser.probe("tcp:db\n:80")) { error in
            XCTAssertEqual((error as? UsageError)?.message, #"probe 'tcp:db\x0a:80' has an invalid host"#)
        }
    }
}

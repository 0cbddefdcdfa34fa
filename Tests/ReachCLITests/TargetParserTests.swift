import XCTest

@testable import ReachCLI

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

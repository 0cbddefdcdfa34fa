import XCTest

import ReachCommandLine

final class PrintableTextTests: XCTestCase {
    func testEscapesControlCharactersUnambiguously() {
        XCTAssertEqual(PrintableText.escaped("db\ninternal"), #"db\x0ainternal"#)
        XCTAssertEqual(PrintableText.escaped("a\u{1}b"), #"a\x01b"#, "not a\\x1b, which reads as ESC")
        XCTAssertEqual(PrintableText.escaped("a\u{1b}"), #"a\x1b"#)
        XCTAssertEqual(PrintableText.escaped("del\u{7f}"), #"del\x7f"#)
        XCTAssertEqual(PrintableText.escaped("café"), "café")
    }

    func testCutsLongText() {
        let long = String(repeating: "a", count: 81)
        XCTAssertEqual(PrintableText.escaped(long), String(repeating: "a", count: 80) + "...")
        XCTAssertEqual(PrintableText.escaped(String(repeating: "a", count: 80)), String(repeating: "a", count: 80))
    }

    func testTheASCIIFormReplacesAllButPrintableASCII() {
        XCTAssertEqual(PrintableText.ascii("GET /caf\u{e9}\r\n\u{7f}x"), "GET /caf????x")
        XCTAssertEqual(PrintableText.ascii("\u{1F600}"), "?", "one character, one question mark")
        XCTAssertEqual(PrintableText.ascii(String(repeating: "b", count: 200)), String(repeating: "b", count: 200))
        XCTAssertEqual(PrintableText.ascii(String(repeating: "b", count: 201)), String(repeating: "b", count: 200) + "...")
    }
}

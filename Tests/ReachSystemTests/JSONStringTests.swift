import XCTest
@testable import ReachSystem

final class JSONStringTests: XCTestCase {
    /// RFC 8259 §7: the quote, the backslash and U+0000-U+001F escaped; DEL and the rest as
    /// they are, as Go's encoding/json and go-logfmt write them.
    func testEscapes() {
        XCTAssertEqual(JSONString.quoted("plain"), #""plain""#)
        XCTAssertEqual(JSONString.quoted("a \"b\"\\"), #""a \"b\"\\""#)
        XCTAssertEqual(JSONString.quoted("\n\r\t"), #""\n\r\t""#)
        XCTAssertEqual(JSONString.quoted("\u{0}\u{8}\u{1F}"), #""\u0000\u0008\u001f""#)
        XCTAssertEqual(JSONString.quoted("del\u{7F}"), "\"del\u{7F}\"")
        XCTAssertEqual(JSONString.quoted("caf\u{E9} \u{2028}"), "\"caf\u{E9} \u{2028}\"")
        XCTAssertFalse(JSONString.needsEscape("del\u{7F} caf\u{E9}"))
        XCTAssertTrue(JSONString.needsEscape("a\rb"))
    }
}

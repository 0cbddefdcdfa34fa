import XCTest

@testable import ReachCLI
import ReachSystem

final class JSONValueTests: XCTestCase {
    func testStringsThatNeedNoEscapeAreWrittenWhole() {
        XCTAssertEqual(JSONValue.string("eth0").serialized(), #""eth0""#)
        XCTAssertEqual(JSONValue.string("2001:db8::1%eth0").serialized(), #""2001:db8::1%eth0""#)
        XCTAssertEqual(JSONValue.string("").serialized(), #""""#)
        XCTAssertEqual(JSONValue.string("wlan-café ✓").serialized(), "\"wlan-café ✓\"")
    }

    func testQuotesBackslashesAndControlCharactersAreEscaped() {
        XCTAssertEqual(JSONValue.string("a\"b").serialized(), #""a\"b""#)
        XCTAssertEqual(JSONValue.string("a\\b").serialized(), #""a\\b""#)
        XCTAssertEqual(JSONValue.string("a\nb\tc\rd").serialized(), #""a\nb\tc\rd""#)
        XCTAssertEqual(JSONValue.string("\u{1}é\u{1f}").serialized(), "\"\\u0001é\\u001f\"")
    }

    func testObjectsKeepKeyOrderAndWriteNull() {
        let value = JSONValue.object([
            ("schema", .int(1)), ("reason", .null), ("flags", .array([.string("Reachable"), .string("IsDirect")])),
            ("reachable", .bool(true)),
        ])
        XCTAssertEqual(
            value.serialized(), #"{"schema":1,"reason":null,"flags":["Reachable","IsDirect"],"reachable":true}"#)
    }
}

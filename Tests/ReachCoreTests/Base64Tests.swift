import ReachCore
import XCTest

final class Base64Tests: XCTestCase {
    /// RFC 4648, 10: the test vectors, both ways.
    func testTheRFCVectors() {
        let vectors = [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64.encoded(Array(plain.utf8)), encoded)
            XCTAssertEqual(Base64.decoded(Substring(encoded)), Array(plain.utf8), encoded)
        }
        XCTAssertEqual(Base64.encoded([0xFB, 0xFF, 0xFE]), "+//+")
        XCTAssertEqual(Base64.decoded("+//+"), [0xFB, 0xFF, 0xFE])
    }

    func testWhatIsNotPaddedBase64IsRefused() {
        for text in ["Zg", "Zg=", "Zg===", "Z===", "Zm9v!", "Zg==Zg==", "Zm 9v"] {
            XCTAssertNil(Base64.decoded(Substring(text)), text)
        }
    }
}

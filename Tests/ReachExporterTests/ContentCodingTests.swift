@testable import ReachExporterSystem
import XCTest

/// The content codings against bodies made by Python's gzip and zlib and by libbrotli's
/// encoder (quality 11), each of "hello, compressed".
final class ContentCodingTests: XCTestCase {
    private let text = Array("hello, compressed".utf8)
    private let gzip = ContentCodingTests.bytes("1f8b0800000000000203cb48cdc9c9d75148cecf2d284a2d2e4e4d0100127e197811000000")
    private let raw = ContentCodingTests.bytes("cb48cdc9c9d75148cecf2d284a2d2e4e4d0100")
    private let zlib = ContentCodingTests.bytes("789ccb48cdc9c9d75148cecf2d284a2d2e4e4d010039cd0696")
    private let brotli = ContentCodingTests.bytes("1b1000f825c7dade6a904e0a9b8b74daf100")

    func testEachCodingDecodesItsBody() {
        XCTAssertEqual(ContentCoding.gzip.decode(gzip, limit: 1024), .success(text))
        // deflate: raw, as Go's compress/flate reads it, or zlib's format, as RFC 9110 names it.
        XCTAssertEqual(ContentCoding.deflate.decode(raw, limit: 1024), .success(text))
        XCTAssertEqual(ContentCoding.deflate.decode(zlib, limit: 1024), .success(text))
        XCTAssertEqual(ContentCoding.br.decode(brotli, limit: 1024), .success(text))
        XCTAssertEqual(ContentCoding.identity.decode(text, limit: 1024), .success(text))
    }

    func testAnOutputLimitStopsTheDecoding() {
        XCTAssertEqual(ContentCoding.gzip.decode(gzip, limit: 5), .success(Array("hello".utf8)))
        XCTAssertEqual(ContentCoding.br.decode(brotli, limit: 5), .success(Array("hello".utf8)))
        XCTAssertEqual(ContentCoding.identity.decode(text, limit: 5), .success(Array("hello".utf8)))
    }

    func testABodyCutShortOrOfAnotherCodingFails() throws {
        for coding in [ContentCoding.gzip, .br] {
            let body = coding == .gzip ? gzip : brotli
            guard case .failure(let why) = coding.decode(Array(body.prefix(8)), limit: 1024) else {
                return XCTFail("\(coding): a body cut short decoded")
            }
            XCTAssertEqual(why.message, "the compressed body ends before its end")
            // Only the start of a longer body: its end is no error.
            XCTAssertNoThrow(try coding.decode(Array(body.prefix(8)), limit: 1024, complete: false).get())
        }
        guard case .failure(let gzipWhy) = ContentCoding.gzip.decode(text, limit: 1024) else { return XCTFail("text decoded as gzip") }
        XCTAssertEqual(gzipWhy.message, "zlib: incorrect header check")
        guard case .failure(let brotliWhy) = ContentCoding.br.decode(gzip, limit: 1024) else { return XCTFail("gzip decoded as br") }
        XCTAssertTrue(brotliWhy.message.hasPrefix("brotli: "), brotliWhy.message)
        XCTAssertFalse(ContentCoding.hasZlibHeader(raw))
        XCTAssertTrue(ContentCoding.hasZlibHeader(zlib))
    }

    private static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }
}

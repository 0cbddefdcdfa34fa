import XCTest
@testable import ReachCore
import ReachSystem

final class HTTPResponseTests: XCTestCase {
    private func parse(_ text: String, closed: Bool = false) -> HTTPResponse.Progress {
        HTTPResponse.parse(Array(text.utf8), connectionClosed: closed)
    }

    private func complete(_ text: String, closed: Bool = false, file: StaticString = #filePath, line: UInt = #line) -> HTTPResponse? {
        guard case .complete(let response) = parse(text, closed: closed) else {
            XCTFail("not complete: \(parse(text, closed: closed))", file: file, line: line)
            return nil
        }
        return response
    }

    func test204NeedsNoBody() {
        XCTAssertEqual(complete("HTTP/1.1 204 No Content\r\nServer: t\r\n\r\n")?.statusCode, 204)
    }

    func testRedirectCarriesItsLocation() {
        let response = complete("HTTP/1.0 302 Found\r\nLocation: http://198.18.0.2:8080/login\r\nContent-Length: 0\r\n\r\n")
        XCTAssertEqual(response?.statusCode, 302)
        XCTAssertEqual(response?.header("location"), "http://198.18.0.2:8080/login")
    }

    func testContentLengthBodyWaitsForAllItsBytes() {
        XCTAssertEqual(parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello"), .incomplete)
        XCTAssertEqual(complete("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhelloworld")?.body, Array("helloworld".utf8))
        // The peer closing early completes what there is.
        XCTAssertEqual(complete("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello", closed: true)?.body, Array("hello".utf8))
    }

    func testBodyWithoutLengthEndsWithTheConnection() {
        XCTAssertEqual(parse("HTTP/1.1 200 OK\r\n\r\npartial"), .incomplete)
        XCTAssertEqual(complete("HTTP/1.1 200 OK\r\n\r\nall of it", closed: true)?.body, Array("all of it".utf8))
    }

    func testChunkedBodyIsDechunked() {
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n"
        XCTAssertEqual(complete(text)?.body, Array("hello world".utf8))
        XCTAssertEqual(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel"), .incomplete)
        XCTAssertEqual(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"), .malformed("bad chunked body"))
    }

    /// A hostile server's chunk size near Int.max trapped on `start + size + 2` (found while
    /// writing the http fuzz target, reproduced with it).
    func testHugeChunkSizeNeverTraps() {
        for size in ["7fffffffffffffff", "7ffffffffffffffe", "7ffffffffffffffd", "ffffffffffffffff"] {
            let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\nabc"
            let progress = parse(head)
            XCTAssertTrue(progress == .incomplete || progress == .malformed("bad chunked body"), "\(size): \(progress)")
            guard case .complete(let response) = parse(head, closed: true) else {
                XCTAssertEqual(parse(head, closed: true), .malformed("bad chunked body"), size)
                continue
            }
            XCTAssertEqual(response.body, Array("abc".utf8), size)
        }
    }

    /// An endless response (a chunk-size line that never ends, one-byte chunks behind long
    /// extensions) is refused after 1 MiB instead of being kept and reparsed until the timeout.
    func testEndlessChunkedResponsesAreRefusedAfterOneMiB() {
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        let endlessSize = head + String(repeating: "0", count: HTTPResponse.responseLimit)
        XCTAssertEqual(parse(endlessSize), .malformed("no end after 1048576 bytes"))
        XCTAssertEqual(parse(String(endlessSize.dropLast(head.utf8.count + 1))), .incomplete)
        let chunk = "1;" + String(repeating: "e", count: 1000) + "\r\nx\r\n"
        let extensions = head + String(repeating: chunk, count: HTTPResponse.responseLimit / chunk.utf8.count + 1)
        XCTAssertEqual(parse(extensions), .malformed("no end after 1048576 bytes"))
        // A finished response longer than the limit is still a response.
        guard case .complete(let response) = parse(extensions + "0\r\n\r\n") else { return XCTFail("not complete") }
        XCTAssertEqual(response.body.count, HTTPResponse.responseLimit / chunk.utf8.count + 1)
    }

    func testChunkSizeLines() {
        let cases: [(String, Int?)] = [
            ("5", 5), ("1a", 26), ("1A", 26), ("  5  ", 5), ("5;name=value", 5), ("5 ;x", 5), ("0", 0),
            ("7fffffffffffffff", Int.max), ("8000000000000000", nil), ("ffffffffffffffffff", nil),
            ("", nil), (";x", nil), ("+5", nil), ("-5", nil), ("5 6", nil), ("g", nil), ("5x", nil),
        ]
        for (line, size) in cases {
            XCTAssertEqual(HTTPResponse.chunkSize(Array(line.utf8)[...]), size, line)
        }
    }

    func testBodyIsCappedAt64KiB() {
        let big = String(repeating: "a", count: 70_000)
        let response = complete("HTTP/1.1 200 OK\r\nContent-Length: 70000\r\n\r\n" + big)
        XCTAssertEqual(response?.body.count, HTTPResponse.bodyLimit)
        // An endless body stops being read at the cap, without waiting for the end.
        XCTAssertEqual(complete("HTTP/1.1 200 OK\r\n\r\n" + big)?.body.count, HTTPResponse.bodyLimit)
    }

    func testMalformedResponses() {
        XCTAssertEqual(parse("SSH-2.0-OpenSSH\r\n"), .malformed("not an HTTP response"))
        XCTAssertEqual(parse("HTTP/1.1 2x0 OK\r\n\r\n"), .malformed("bad status line"))
        XCTAssertEqual(parse("HTTP/2 200\r\n\r\n"), .malformed("bad status line"))
        XCTAssertEqual(parse("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n"), .malformed("bad header line"))
        XCTAssertEqual(parse("HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n"), .malformed("bad Content-Length"))
        XCTAssertEqual(parse("", closed: true), .malformed("empty response"))
        XCTAssertEqual(parse("HTTP/1.1 200 OK\r\nX: y", closed: true), .malformed("response ended inside its headers"))
        XCTAssertEqual(parse("HTTP/1.1 200 OK\r\nX: " + String(repeating: "y", count: 40_000)),
                       .malformed("headers longer than 32768 bytes"))
        // Bytes that are not UTF-8 in the head never trap.
        var bytes = Array("HTTP/1.1 200 OK\r\nX: ".utf8) + [0xff, 0xfe, 0x00] + Array("\r\n\r\n".utf8)
        guard case .complete = HTTPResponse.parse(bytes, connectionClosed: true) else { return XCTFail("not complete") }
        bytes = [0xff]
        XCTAssertEqual(HTTPResponse.parse(bytes, connectionClosed: false), .incomplete)
    }
}

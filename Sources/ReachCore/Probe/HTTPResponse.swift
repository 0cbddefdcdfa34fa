/// The parts of an HTTP/1.x response a connectivity check looks at. Parsed from
/// whatever bytes arrived; never traps on hostile input.
public struct HTTPResponse: Equatable, Sendable {
    public var statusCode: Int
    public var headers: [(name: String, value: String)]
    /// At most `HTTPResponse.bodyLimit` bytes of the (de-chunked) body.
    public var body: [UInt8]

    public static let bodyLimit = 64 * 1024
    /// Headers longer than this are not a response we need to understand.
    public static let headerLimit = 32 * 1024

    public init(statusCode: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        (self.statusCode, self.headers, self.body) = (statusCode, headers, body)
    }

    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public enum Progress: Equatable {
        /// More bytes are needed (or the connection's end will complete it).
        case incomplete
        case complete(HTTPResponse)
        /// The bytes are not an HTTP response.
        case malformed(String)
    }

    /// Bytes after which a response that is still incomplete is refused: a chunked body
    /// whose size line never ends, or chunks of a byte behind long extensions, would
    /// otherwise be read (and reparsed) until the probe's timeout, without bound in memory.
    public static let responseLimit = 1024 * 1024

    /// Parses `bytes` received so far. `connectionClosed` says no more will come,
    /// which completes a body that has no length.
    public static func parse(_ bytes: [UInt8], connectionClosed: Bool) -> Progress {
        let progress = parseReceived(bytes, connectionClosed: connectionClosed)
        if progress == .incomplete, bytes.count > responseLimit {
            return .malformed("no end after \(responseLimit) bytes")
        }
        return progress
    }

    private static func parseReceived(_ bytes: [UInt8], connectionClosed: Bool) -> Progress {
        guard let headerEnd = findHeaderEnd(bytes) else {
            if bytes.count > headerLimit { return .malformed("headers longer than \(headerLimit) bytes") }
            if connectionClosed {
                return bytes.isEmpty ? .malformed("empty response") : .malformed("response ended inside its headers")
            }
            if bytes.count >= 5, !bytes.starts(with: Array("HTTP/".utf8)) { return .malformed("not an HTTP response") }
            return .incomplete
        }
        let headText = String(decoding: bytes[..<headerEnd], as: UTF8.self)
        var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst()
        let statusParts = statusLine.split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."),
              statusParts[1].count == 3, let code = Int(statusParts[1]), (100...999).contains(code) else {
            return .malformed("bad status line")
        }
        var headers: [(String, String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return .malformed("bad header line") }
            headers.append((String(line[..<colon]).trimmingWhitespace(), String(line[line.index(after: colon)...]).trimmingWhitespace()))
        }
        var response = HTTPResponse(statusCode: code, headers: headers, body: [])
        let rest = Array(bytes[(headerEnd + 4)...])
        // 1xx, 204 and 304 carry no body.
        if code < 200 || code == 204 || code == 304 { return .complete(response) }
        if response.header("Transfer-Encoding")?.lowercased().firstRange(ofText: "chunked") != nil {
            switch dechunk(rest) {
            case .some((let body, let finished)):
                response.body = Array(body.prefix(bodyLimit))
                if finished || connectionClosed || body.count >= bodyLimit { return .complete(response) }
                return .incomplete
            case .none:
                return .malformed("bad chunked body")
            }
        }
        if let lengthText = response.header("Content-Length") {
            guard let length = Int(lengthText), length >= 0 else { return .malformed("bad Content-Length") }
            response.body = Array(rest.prefix(min(length, bodyLimit)))
            if rest.count >= min(length, bodyLimit) || connectionClosed { return .complete(response) }
            return .incomplete
        }
        response.body = Array(rest.prefix(bodyLimit))
        return connectionClosed || rest.count >= bodyLimit ? .complete(response) : .incomplete
    }

    private static func findHeaderEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// The body of a chunked transfer so far, and whether the last chunk came; nil if malformed.
    static func dechunk(_ bytes: [UInt8]) -> ([UInt8], Bool)? {
        var body: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = findCRLF(bytes, from: index) else { return (body, false) }
            guard let size = chunkSize(bytes[index..<lineEnd]) else { return nil }
            if size == 0 { return (body, true) }
            let start = lineEnd + 2
            let remaining = bytes.count - start
            let available = min(size, remaining)
            if available > 0 { body += bytes[start..<start + available] }
            if body.count >= bodyLimit { return (body, true) }
            // Compared without adding to `size`: a size of 7fffffffffffffff overflowed `start + size + 2`.
            guard remaining >= 2, size <= remaining - 2 else { return (body, false) }
            index = start + size + 2
        }
    }

    /// The size on a chunk-size line: hex digits between optional blanks, then the end or a
    /// `;` extension; nil for anything else or a size beyond Int. Read from the bytes, with
    /// no String per line: the probe reparses everything received after each read, and a
    /// hostile server sends a million chunks.
    static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        var index = line.startIndex
        while index < line.endIndex, blank(line[index]) { index += 1 }
        var size = 0
        var digits = 0
        while index < line.endIndex {
            let byte = line[index]
            let value: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = Int(byte - UInt8(ascii: "A")) + 10
            default: value = -1
            }
            if value < 0 { break }
            guard size <= (Int.max - value) / 16 else { return nil }
            size = size * 16 + value
            digits += 1
            index += 1
        }
        while index < line.endIndex, blank(line[index]) { index += 1 }
        guard digits > 0, index == line.endIndex || line[index] == UInt8(ascii: ";") else { return nil }
        return size
    }

    private static func findCRLF(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 13 && bytes[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }
}

import ReachCore

/// A domain name as labels of raw bytes (RFC 1035, 3.1): read from a message with its
/// compression pointers followed (4.1.4), written from and to the presentation form
/// (`www.example.com.`, `\.` and `\DDD` escapes, RFC 1035, 5.1).
public struct DNSName: Hashable, Sendable {
    public var labels: [[UInt8]]

    public init(labels: [[UInt8]]) {
        self.labels = labels
    }

    /// RFC 1035, 2.3.4: 63 octets a label, 255 a name on the wire.
    static let maximumLabelLength = 63
    static let maximumWireLength = 255
    /// miekg/dns's bound on the pointers one name may follow (`msg.go` maxCompressionPointers):
    /// a loop ends there, long before it could cost anything.
    static let maximumPointers = (maximumWireLength + 1) / 2 - 2

    public struct SyntaxError: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The name written in presentation form; a final dot is implied (miekg/dns's `Fqdn`).
    public static func parse(_ text: String) throws(SyntaxError) -> DNSName {
        var labels: [[UInt8]] = []
        var label: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        if text == "." { return DNSName(labels: []) }
        while let byte = bytes.popFirst() {
            switch byte {
            case UInt8(ascii: "."):
                guard !label.isEmpty else { throw SyntaxError(description: "'\(text)' has an empty label") }
                labels.append(label)
                label = []
                continue
            case UInt8(ascii: "\\"):
                guard let next = bytes.popFirst() else { throw SyntaxError(description: "'\(text)' ends with a lone backslash") }
                if let digit = Self.digit(next) {
                    guard let second = bytes.popFirst().flatMap(Self.digit), let third = bytes.popFirst().flatMap(Self.digit),
                          digit * 100 + second * 10 + third <= 255
                    else { throw SyntaxError(description: "'\(text)': \\DDD needs three digits, at most 255") }
                    label.append(UInt8(digit * 100 + second * 10 + third))
                } else {
                    label.append(next)
                }
            default:
                label.append(byte)
            }
            guard label.count <= maximumLabelLength else {
                throw SyntaxError(description: "'\(text)' has a label of more than \(maximumLabelLength) bytes")
            }
        }
        if !label.isEmpty { labels.append(label) }
        let name = DNSName(labels: labels)
        guard name.wireLength <= maximumWireLength else {
            throw SyntaxError(description: "'\(text)' is longer than \(maximumWireLength) bytes on the wire")
        }
        return name
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    var wireLength: Int { labels.reduce(1) { $0 + 1 + $1.count } }

    func encode(into bytes: inout [UInt8]) {
        for label in labels {
            bytes.append(UInt8(label.count))
            bytes += label
        }
        bytes.append(0)
    }

    /// The name at `offset` of `message`, read no further than `limit`, and the offset after
    /// it (after its first pointer when it has one). miekg/dns's `UnpackDomainName`: labels of
    /// 0x40 and 0x80 are refused, 255 bytes at most, `maximumPointers` pointers at most.
    static func decode(_ message: ArraySlice<UInt8>, at offset: Int, limit: Int) throws -> (DNSName, Int) {
        var labels: [[UInt8]] = []
        var position = offset
        var next: Int?
        var pointers = 0
        var budget = maximumWireLength
        let start = message.startIndex
        while true {
            guard position < limit else { throw ParseError(offset: position - start, "a name runs past the end") }
            let length = Int(message[position])
            position += 1
            switch length & 0xC0 {
            case 0x00:
                if length == 0 { return (DNSName(labels: labels), next ?? position) }
                guard position + length <= limit else { throw ParseError(offset: position - start, "a label runs past the end") }
                budget -= length + 1
                guard budget > 0 else { throw ParseError(offset: position - start, "a name longer than 255 bytes") }
                labels.append(Array(message[position..<position + length]))
                position += length
            case 0xC0:
                guard position < limit else { throw ParseError(offset: position - start, "a pointer runs past the end") }
                if next == nil { next = position + 1 }
                pointers += 1
                guard pointers <= maximumPointers else { throw ParseError(offset: position - start, "too many compression pointers") }
                position = start + ((length & 0x3F) << 8 | Int(message[position]))
            default:
                throw ParseError(offset: position - 1 - start, "a label of reserved type 0x\(String(length & 0xC0, radix: 16))")
            }
        }
    }

    /// miekg/dns's text for the name (`sprintName` over `UnpackDomainName`'s escapes): the
    /// labels joined by dots with a final dot, `. ' @ ; ( ) " \` and space escaped with a
    /// backslash, other bytes outside space...tilde as `\DDD`; the root is ".".
    public var text: String {
        if labels.isEmpty { return "." }
        var out: [UInt8] = []
        for label in labels {
            for byte in label {
                switch byte {
                case UInt8(ascii: "."), UInt8(ascii: " "), UInt8(ascii: "'"), UInt8(ascii: "@"), UInt8(ascii: ";"),
                     UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    out += [UInt8(ascii: "\\"), byte]
                default:
                    DNSText.appendPrintable(byte, to: &out)
                }
            }
            out.append(UInt8(ascii: "."))
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// miekg/dns's text escapes shared by names and character strings.
enum DNSText {
    /// A byte as is when printable ASCII, else `\DDD` (three decimal digits).
    static func appendPrintable(_ byte: UInt8, to out: inout [UInt8]) {
        guard byte < 0x20 || byte > 0x7E else {
            out.append(byte)
            return
        }
        out.append(UInt8(ascii: "\\"))
        for divisor in [100, 10, 1] { out.append(UInt8(ascii: "0") + UInt8(Int(byte) / divisor % 10)) }
    }

    /// A character string (RFC 1035, 3.3) in quotes, `"` and `\` escaped (miekg/dns's `sprintTxt`).
    static func quoted(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in bytes {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
            appendPrintable(byte, to: &out)
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }
}

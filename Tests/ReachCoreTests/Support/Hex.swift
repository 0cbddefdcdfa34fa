@testable import ReachCore
import ReachSystem

/// Bytes from a commented hex fixture: on each line, everything after `//` is a
/// comment, and spaces between the digits are only for reading.
func hex(_ text: String) -> [UInt8] {
    var digits: [UInt8] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        var previous: UInt8 = 0
        for byte in line.utf8 {
            if byte == UInt8(ascii: "/") && previous == UInt8(ascii: "/") {
                digits.removeLast() // the first slash
                break
            }
            previous = byte
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { continue }
            digits.append(byte)
        }
    }
    precondition(digits.count % 2 == 0, "fixture has an odd number of hex digits")
    return stride(from: 0, to: digits.count, by: 2).map { index in
        guard let value = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
            preconditionFailure("fixture holds a non-hex character near digit \(index)")
        }
        return value
    }
}

/// Hex text of bytes, for comparisons whose failures a person can read.
func hexString<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let digits: [Character] = Array("0123456789abcdef")
    var text = ""
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0xf)])
    }
    return text
}

/// The datagram with the sequence number of every message in it replaced: a captured
/// reply (sequence 1) answering a later request of the same client.
func resequenced(_ datagram: [UInt8], to sequence: UInt32) -> [UInt8] {
    var bytes = datagram
    var offset = 0
    while offset + 16 <= bytes.count {
        let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
        for index in 0..<4 { bytes[offset + 8 + index] = UInt8(truncatingIfNeeded: sequence >> (8 * UInt32(index))) }
        offset += max(16, (length + 3) & ~3)
    }
    return bytes
}

/// Decodes every strict prefix of `bytes` and counts those refused with a ParseError;
/// any other error is rethrown, and a trap would end the test run.
func truncationsRefused(_ bytes: [UInt8], by decode: (ArraySlice<UInt8>) throws -> Void) throws -> Int {
    var refused = 0
    for length in 0..<bytes.count {
        do {
            try decode(bytes.prefix(length))
        } catch is ParseError {
            refused += 1
        }
    }
    return refused
}

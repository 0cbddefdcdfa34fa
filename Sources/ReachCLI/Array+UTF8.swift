/// Text appended to UTF-8 bytes by copying it whole: `bytes += text.utf8` goes through the
/// generic append of a sequence, element by element, and a list's output makes thousands of
/// them (callgrind).
extension Array where Element == UInt8 {
    /// A literal's bytes.
    mutating func append(literal: StaticString) {
        literal.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// A string's UTF-8 (a small string is read from a copy on the stack).
    mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }
}

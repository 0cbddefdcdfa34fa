/// UTF-8 read as Go's unicode/utf8 DecodeRune reads it: a byte that starts no valid,
/// shortest-form sequence of a scalar value is U+FFFD, one byte wide.
enum UTF8Decoding {
    static let replacement: Int32 = 0xFFFD

    /// The rune at `offset` and its width; -1 and 0 at the end.
    static func rune(in text: UnsafeBufferPointer<UInt8>, at offset: Int) -> (rune: Int32, width: Int) {
        guard offset < text.count else { return (-1, 0) }
        let lead = text[offset]
        if lead < 0x80 { return (Int32(lead), 1) }
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, low) = (3, 0xA0)
        case 0xED: (length, high) = (3, 0x9F)
        case 0xE1...0xEF: length = 3
        case 0xF0: (length, low) = (4, 0x90)
        case 0xF4: (length, high) = (4, 0x8F)
        case 0xF1...0xF3: length = 4
        default: return (replacement, 1)
        }
        guard offset + length <= text.count else { return (replacement, 1) }
        var value = Int32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for index in 1..<length {
            let byte = text[offset + index]
            // The second byte's bounds rule out overlong forms, surrogates and values past U+10FFFF.
            guard byte >= (index == 1 ? low : 0x80), byte <= (index == 1 ? high : 0xBF) else { return (replacement, 1) }
            value = value << 6 | Int32(byte & 0x3F)
        }
        return (value, length)
    }
}

/// RFC 4648, 4: base64 with padding (Go's base64.StdEncoding), as HTTP's Basic credentials
/// (RFC 7617, 2) and DNS's key presentation carry it.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encoded(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        for chunk in stride(from: 0, to: bytes.count, by: 3) {
            let group = bytes[chunk..<min(chunk + 3, bytes.count)]
            let value = group.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for index in 0..<4 {
                out.append(index <= group.count ? alphabet[(value >> (18 - 6 * index)) & 0x3F] : UInt8(ascii: "="))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of padded base64 text; nil when it is not that.
    public static func decoded(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        var padding = 0
        for byte in text.utf8 {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: return nil
            }
            guard padding == 0 else { return nil }
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        guard text.utf8.count % 4 == 0, padding <= 2 else { return nil }
        return bytes
    }
}

/// A value put into a URL's query: Go's `url.QueryEscape` (net/url/url.go), which the
/// oauth2 token request and the page's links both follow.
enum URLQuery {
    /// Unreserved bytes (RFC 3986, 2.3) as they are, a space as '+', the rest %XX.
    static func escaped(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "): result += "+"
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                result += "%"
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return result
    }
}

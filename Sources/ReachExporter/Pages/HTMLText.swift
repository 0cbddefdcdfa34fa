/// Text placed in an HTML page, escaped as Go's `html.EscapeString` escapes it (the five
/// characters that can end an element, an attribute value or a character reference), so a
/// target or module name holding `<script>` or quotes is shown as text. Control characters but
/// tab and line feed are written as U+FFFD: a page shows names, not a terminal's bytes.
enum HTMLText {
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "'": out += "&#39;"
            case "\"": out += "&#34;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value): out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A query parameter's value inside an `href`: escaped for the URL, then for the attribute.
    static func queryValue(_ text: String) -> String { escaped(URLQuery.escaped(text)) }
}

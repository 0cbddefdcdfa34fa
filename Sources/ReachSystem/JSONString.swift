/// A JSON string (RFC 8259 §7): the one escaper of `reach --json` and reach-exporter's
/// logfmt and JSON log lines.
///
/// It escapes what §7 requires, the quote, the backslash and U+0000 to U+001F: `\n`, `\r` and
/// `\t` by name, the others as `\u00XX`. DEL (0x7F) is written as it is, as §7 allows and as
/// Go's encoding/json (encode.go, safeSet) and go-logfmt (encode.go, writeQuotedString, under
/// go-kit's logfmt logger) both write it: blackbox_exporter's log lines, which ExporterLog's
/// mimic, carry it unescaped.
public enum JSONString {
    /// Whether `value` holds anything to escape. A plain loop: contains(where:) with a
    /// closure was half of a list's JSON string writing (perf).
    public static func needsEscape(_ value: String) -> Bool {
        for byte in value.utf8 where byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return true }
        return false
    }

    /// `value` in quotes, escaped.
    public static func quoted(_ value: String) -> String {
        var output = ""
        write(value, to: &output)
        return output
    }

    /// Appends `value` in quotes, escaped.
    public static func write(_ value: String, to output: inout String) {
        output += "\""
        // Most strings need no escape: append them whole (scalar by scalar cost 4 K
        // instructions a string, a third of what `reach status --json` adds to start-up).
        if !needsEscape(value) {
            output += value
            output += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

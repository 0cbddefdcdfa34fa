/// Text from outside (a command-line word, a request's path or parameter, a file name)
/// quoted in a one-line message: whatever it holds, the message stays one line of bounded
/// length. The one escaper of reach and reach-exporter.
public enum PrintableText {
    /// What becomes of a character that cannot be shown as it is.
    public enum Form: Sendable {
        /// Control characters as `\xNN`, everything else kept (a terminal shows UTF-8): the
        /// command line's messages, at most 80 characters.
        case escaped
        /// Everything but printable ASCII as `?`: the exporter's HTTP replies and log lines,
        /// which promise ASCII, at most 200 characters.
        case ascii
    }

    /// A command-line word, control characters escaped, long text cut.
    public static func escaped(_ text: String) -> String { shown(text, form: .escaped, limit: 80) }

    /// At most 200 printable ASCII characters of a caller's text, for a one-line reason.
    public static func ascii(_ text: String) -> String { shown(text, form: .ascii, limit: 200) }

    /// The first `limit` characters (Unicode scalars) of `text` in `form`, then "..." when
    /// there were more.
    public static func shown(_ text: String, form: Form, limit: Int) -> String {
        var output = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            let control = scalar.value < 0x20 || scalar.value == 0x7f
            switch form {
            case .escaped where control:
                // Two digits always: "\x1" followed by "b" would read as "\x1b".
                let hex = String(scalar.value, radix: 16)
                output += (hex.count == 1 ? "\\x0" : "\\x") + hex
            case .ascii where control || !scalar.isASCII:
                output += "?"
            case .escaped, .ascii:
                output.unicodeScalars.append(scalar)
            }
        }
        return text.unicodeScalars.count > limit ? output + "..." : output
    }
}

/// A command-line word quoted in a one-line message: whatever the word holds, the message
/// stays one line of bounded length.
public enum PrintableText {
    /// The text as it can be shown on one line: control characters escaped, long text cut.
    public static func escaped(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars.prefix(80) {
            if scalar.value < 0x20 || scalar.value == 0x7f {
                // Two digits always: "\x1" followed by "b" would read as "\x1b".
                let hex = String(scalar.value, radix: 16)
                output += (hex.count == 1 ? "\\x0" : "\\x") + hex
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return text.unicodeScalars.count > 80 ? output + "..." : output
    }
}

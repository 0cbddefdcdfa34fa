/// A command's help, laid out as swift-argument-parser laid it out (OVERVIEW, USAGE,
/// ARGUMENTS, OPTIONS, SUBCOMMANDS; help text from column 27, lines of at most 80 columns).
///
/// Written as bytes: counting a String's Characters walks its grapheme clusters, and
/// String's generic `split` makes the runtime build types, both at every start that prints
/// help.
public enum HelpText {
    static let width = 80
    static let labelWidth = 24

    /// An entry of an OPTIONS or SUBCOMMANDS list that no declaration holds (`--version`).
    public struct Entry: Sendable {
        public let label: String
        public let help: String

        public init(_ label: String, _ help: String) {
            self.label = label
            self.help = help
        }
    }

    /// `reach ping --help`. `extraOptions`: the program's own (`--version`, `-h, --help`).
    public static func command(_ command: CommandSummary, extraOptions: [Entry]) -> String {
        var text = overview(command.about)
        text += "USAGE: " + usage(command) + "\n\n"
        if let operand = command.operand {
            text += "ARGUMENTS:\n" + entry("<" + operand.name + ">", operand.help) + "\n"
        }
        text += "OPTIONS:\n"
        for option in command.options {
            guard let help = option.help else { continue }
            text += entry(label(option), described(option, help))
        }
        for extra in extraOptions { text += entry(extra.label, extra.help) }
        return text + "\n"
    }

    /// A program's help that lists its commands (`reach --help`).
    public static func program(_ about: CommandAbout, commands: [Entry], extraOptions: [Entry]) -> String {
        var text = overview(about)
        text += "USAGE: " + about.path + " <subcommand>\n\nOPTIONS:\n"
        for extra in extraOptions { text += entry(extra.label, extra.help) }
        text += "\nSUBCOMMANDS:\n"
        for command in commands { text += entry(command.label, command.help) }
        return text + "\n  See '" + about.path + " help <subcommand>' for detailed help.\n"
    }

    /// `help` with the range of the option's type before its last period ("Probes running at
    /// once (1-1024).") and its typed default after ("(default: 16)").
    static func described(_ option: OptionName, _ help: String) -> String {
        var text = help
        if let range = option.range {
            let period = text.hasSuffix(".")
            if period { text.removeLast() }
            text += " (" + range + ")" + (period ? "." : "")
        }
        return option.defaultValue.map { text + " (default: " + $0 + ")" } ?? text
    }

    /// The abstract, then each paragraph of the discussion (paragraphs part at a blank line).
    static func overview(_ about: CommandAbout) -> String {
        var text = wrapped("OVERVIEW: " + about.abstract) + "\n\n"
        guard let discussion = about.discussion() else { return text }
        let bytes = Array(discussion.utf8)
        var start = 0
        var index = 0
        while index <= bytes.count {
            let atBreak = index + 1 < bytes.count && bytes[index] == newline && bytes[index + 1] == newline
            if index == bytes.count || atBreak {
                text += String(decoding: wrappedBytes(bytes[start..<index], indent: 0, column: 0), as: UTF8.self) + "\n\n"
                start = index + 2
                index += 2
            } else {
                index += 1
            }
        }
        return text
    }

    /// `reach status [-4] ... [--quiet]`, or `reach ping [<options>] [<hosts> ...]` when
    /// listing every option would make a long line.
    static func usage(_ command: CommandSummary) -> String {
        let operand = command.operand.map { " [<" + $0.name + "> ...]" } ?? ""
        var shown = 0
        for option in command.options where option.help != nil { shown += 1 }
        guard shown <= 12 else { return command.about.path + " [<options>]" + operand }
        var line = command.about.path + operand
        for option in command.options where option.help != nil {
            let name = option.long.map { "--" + $0 } ?? option.spelled
            line += " [" + name + (option.valueName.map { " <" + $0 + ">" } ?? "") + (option.repeats ? " ...]" : "]")
        }
        return line
    }

    /// `-c <count>`, `-q, --quiet`, `--probe <spec>`.
    static func label(_ option: OptionName) -> String {
        var label = ""
        if let letter = option.letter { label = "-" + String(UnicodeScalar(letter)) }
        if let long = option.long { label += (label.isEmpty ? "--" : ", --") + long }
        return label + (option.valueName.map { " <" + $0 + ">" } ?? "")
    }

    /// One label and its help: the help beside the label when it fits, else below it.
    static func entry(_ label: String, _ help: String) -> String {
        var lead = Array("  ".utf8)
        lead += label.utf8
        if help.isEmpty { return String(decoding: lead, as: UTF8.self) + "\n" }
        let margin = labelWidth + 2
        let used = columns(lead[...])
        if used < margin {
            lead += repeatElement(space, count: margin - used)
        } else {
            lead.append(newline)
            lead += repeatElement(space, count: margin)
        }
        lead += wrappedBytes(Array(help.utf8)[...], indent: margin, column: margin)
        lead.append(newline)
        return String(decoding: lead, as: UTF8.self)
    }

    /// `text` in lines of at most `width` columns.
    static func wrapped(_ text: String) -> String {
        String(decoding: wrappedBytes(Array(text.utf8)[...], indent: 0, column: 0), as: UTF8.self)
    }

    /// The words of `text` from `column` on, a new line indented by `indent` when the next
    /// word would pass the width. A word is followed by a blank within the width, the last
    /// one need not be (ArgumentParser's layout).
    static func wrappedBytes(_ text: ArraySlice<UInt8>, indent: Int, column start: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count + 64)
        var column = start
        var lineHasWord = false
        var index = text.startIndex
        while index < text.endIndex {
            // Blanks and line ends between words only part them.
            if text[index] == space || text[index] == newline {
                index += 1
                continue
            }
            var end = index
            while end < text.endIndex && text[end] != space && text[end] != newline { end += 1 }
            var next = end
            while next < text.endIndex && (text[next] == space || text[next] == newline) { next += 1 }
            let length = columns(text[index..<end])
            let reaches = column + (lineHasWord ? 1 : 0) + length + (next == text.endIndex ? 0 : 1)
            if lineHasWord && reaches > width {
                output.append(newline)
                output += repeatElement(space, count: indent)
                column = indent
                lineHasWord = false
            }
            if lineHasWord {
                output.append(space)
                column += 1
            }
            output += text[index..<end]
            column += length
            lineHasWord = true
            index = next
        }
        return output
    }

    /// The columns UTF-8 bytes take: one per scalar (its first byte).
    static func columns(_ bytes: ArraySlice<UInt8>) -> Int {
        var count = 0
        for byte in bytes where byte & 0xC0 != 0x80 { count += 1 }
        return count
    }

    static let space = UInt8(ascii: " ")
    static let newline = UInt8(ascii: "\n")
}

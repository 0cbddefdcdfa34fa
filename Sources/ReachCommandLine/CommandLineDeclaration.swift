/// A command's command line declared once: its name and help, its operand, and for each
/// option its names, value, help and how it sets the command's `Options`. The reader
/// (`parse`), `--help` (`HelpText`), the shell completions (`Completions`) and the man page
/// check (`scripts/lint-options.py`, through `--list-options`) all work from it, as
/// ripgrep's flags do (crates/core/flags/defs.rs).
public struct CommandLineDeclaration<Options>: Sendable {
    public let about: CommandAbout
    public let operand: Operand
    public let options: [OptionDeclaration<Options>]

    /// `options` holds the command's own and its groups' (`+ PathOptions.commandLine { $1(&$0.path) }`):
    /// one array, not an array of arrays, which would be one more type for the runtime to make.
    public init(about: CommandAbout, operand: Operand, options: [OptionDeclaration<Options>]) {
        self.about = about
        self.operand = operand
        self.options = options
    }

    /// The words that are not options: none (`status`), or any number, each appended in order
    /// (the targets of `host`, `addr`, `watch` and `ping`, which may come between options).
    /// A command refuses a run with no target itself.
    public enum Operand: Sendable {
        case none
        case variadic(OperandName, @Sendable (inout Options, String) -> Void)

        var name: OperandName? {
            if case .variadic(let name, _) = self { name } else { nil }
        }
    }

    /// The names and help of the options and operand, for help and completions.
    public var summary: CommandSummary {
        var names: [OptionName] = []
        names.reserveCapacity(options.count)
        for option in options { names.append(option.name) }
        return CommandSummary(about: about, operand: operand.name, options: names)
    }

    /// The index of the option whose short name is `letter`.
    func option(letter: UInt8) -> Int? {
        for index in options.indices where options[index].name.letter == letter { return index }
        return nil
    }

    /// The index of the option whose long name is `name` (the word without its two dashes).
    func option(long name: ArraySlice<UInt8>) -> Int? {
        for index in options.indices {
            if let long = options[index].name.long, Self.spells(long, name) { return index }
        }
        return nil
    }

    /// Whether `bytes` are `text`'s UTF-8. Not `elementsEqual`: in this generic type the
    /// compiler leaves that generic too, and the runtime then looks its conformances up.
    static func spells(_ text: String, _ bytes: ArraySlice<UInt8>) -> Bool {
        var index = bytes.startIndex
        for byte in text.utf8 {
            guard index < bytes.endIndex, bytes[index] == byte else { return false }
            index += 1
        }
        return index == bytes.endIndex
    }
}

/// What a command is, for its help: `reach ping`, one line, and the paragraphs below it.
public struct CommandAbout: Sendable {
    /// The words that run it: `reach ping`.
    public let path: String
    public let abstract: String
    /// The paragraphs, made only when help is printed: they name other options from their
    /// declarations, which a run need not make.
    public let discussion: @Sendable () -> String?

    public init(path: String, abstract: String, discussion: @autoclosure @escaping @Sendable () -> String? = nil) {
        self.path = path
        self.abstract = abstract
        self.discussion = discussion
    }

    /// What an error message names before its text: `ping: ` for `reach ping`, nothing for a
    /// program without commands (the program's own name is printed before it).
    public var context: String {
        guard let space = path.firstIndex(of: " ") else { return "" }
        return path[path.index(after: space)...] + ": "
    }

    /// The last word of `path`: `ping`.
    public var name: String {
        path.split(separator: " ").last.map(String.init) ?? path
    }
}

/// The operand's name in help (`hosts`) and its line of help.
public struct OperandName: Sendable {
    public let name: String
    public let help: String

    public init(_ name: String, help: String) {
        self.name = name
        self.help = help
    }
}

/// A command's names and help without the type of its options.
public struct CommandSummary: Sendable {
    public let about: CommandAbout
    public let operand: OperandName?
    public let options: [OptionName]

    public init(about: CommandAbout, operand: OperandName?, options: [OptionName]) {
        self.about = about
        self.operand = operand
        self.options = options
    }
}

/// What a command line asks for besides a run.
public enum ParseOutcome: Sendable, Equatable {
    /// Options read; run the command.
    case run
    /// `-h` or `--help`, anywhere before `--`: print the command's help.
    case help
    /// `--version`, where the command declares no option of that name: print the version.
    case version
}

// MARK: - The reader

extension CommandLineDeclaration {
    /// Reads `words` into `options` as getopt_long(3) reads a command line: `-c 5`, `-c5`,
    /// grouped flags that may end in a value option (`-qn`, `-qc1`, `-nqc 3`), `--timeout 5s`,
    /// `--timeout=5s`, options before, between and after operands, `--` ending the options.
    /// An option given twice keeps its last value (a repeatable one keeps every value).
    /// Typed values are converted once every word is read, the last of each: `--timeout -1
    /// --timeout 2s` is 2 s, and a wrong option after a wrong value is what is said.
    /// Anything else is a usage error that says what is wrong in one line.
    public func parse(_ words: ArraySlice<String>, into options: inout Options) throws(UsageError) -> ParseOutcome {
        var reader = WordReader(words: words)
        while let word = reader.next() {
            let bytes = Array(word.utf8)
            if reader.optionsEnded || bytes.count < 2 || bytes[0] != UInt8(ascii: "-") {
                try take(operand: word, into: &options)
            } else if bytes == [UInt8(ascii: "-"), UInt8(ascii: "-")] {
                reader.optionsEnded = true
            } else if bytes[1] == UInt8(ascii: "-") {
                let outcome = try readLong(bytes, from: &reader, into: &options)
                if outcome != .run { return outcome }
            } else {
                if try readShort(bytes, from: &reader, into: &options) == .help { return .help }
            }
        }
        for (index, text) in zip(reader.typedOptions, reader.typedTexts) {
            guard case .value(_, let store) = self.options[index].setting else { continue }
            try set(self.options[index], text, store, into: &options)
        }
        return .run
    }

    private func take(operand word: String, into options: inout Options) throws(UsageError) {
        guard case .variadic(_, let append) = operand else {
            throw UsageError("\(about.context)unexpected argument '\(PrintableText.escaped(word))'")
        }
        append(&options, word)
    }

    /// `--json`, `--timeout 5s`, `--timeout=5s`, `--help`.
    private func readLong(
        _ bytes: [UInt8], from reader: inout WordReader, into options: inout Options
    ) throws(UsageError) -> ParseOutcome {
        let nameEnd = bytes.firstIndex(of: UInt8(ascii: "=")) ?? bytes.endIndex
        let name = bytes[2..<nameEnd]
        guard let index = option(long: name) else {
            if Self.spells(ProgramOption.longName(ProgramOption.help), name) { return .help }
            if Self.spells(ProgramOption.longName(ProgramOption.version), name) { return .version }
            throw unknown("--" + String(decoding: name, as: UTF8.self))
        }
        let option = self.options[index]
        let joined = nameEnd < bytes.endIndex ? String(decoding: bytes[(nameEnd + 1)...], as: UTF8.self) : nil
        switch option.setting {
        case .flag(let set):
            if let joined {
                throw UsageError("\(about.context)\(option.name.spelled) takes no value, and '\(PrintableText.escaped(joined))' was given")
            }
            set(&options)
        case .value(let parsing, let store):
            var value = joined ?? ""
            if joined == nil { value = try reader.value(for: option.name, parsing, context: about.context) }
            if option.name.typed {
                reader.keep(index, value, repeats: option.name.repeats)
            } else {
                try set(option, value, store, into: &options)
            }
        }
        return .run
    }

    /// `-q`, `-qn`, `-c 5`, `-c5`, `-qc1`, `-h`.
    private func readShort(
        _ bytes: [UInt8], from reader: inout WordReader, into options: inout Options
    ) throws(UsageError) -> ParseOutcome {
        var position = 1
        while position < bytes.count {
            let letter = bytes[position]
            position += 1
            guard let index = option(letter: letter) else {
                if letter == UInt8(ascii: "h") { return .help }
                let word = bytes.count > 2 ? String(decoding: bytes, as: UTF8.self) : nil
                throw unknown("-" + String(decoding: [letter], as: UTF8.self), word: word)
            }
            let option = self.options[index]
            switch option.setting {
            case .flag(let set):
                set(&options)
            case .value(let parsing, let store):
                // The rest of the word is the value (`-c5`), else the next word is.
                let value: String
                if position < bytes.count {
                    value = String(decoding: bytes[position...], as: UTF8.self)
                } else {
                    value = try reader.value(for: option.name, parsing, context: about.context)
                }
                if option.name.typed {
                    reader.keep(index, value, repeats: option.name.repeats)
                } else {
                    try set(option, value, store, into: &options)
                }
                return .run
            }
        }
        return .run
    }

    private func set(
        _ option: OptionDeclaration<Options>, _ value: String, _ store: @Sendable (inout Options, String) -> ValueProblem?,
        into options: inout Options
    ) throws(UsageError) {
        switch store(&options, value) {
        case nil: return
        case .notAValue:
            throw UsageError("\(about.context)\(option.name.spelledWithValue): '\(PrintableText.escaped(value))' is not a valid value")
        case .said(let rest):
            // As the command's own checks said it before the value was typed: `-i: ...`,
            // without the command's name.
            throw UsageError(option.name.spelled + rest)
        }
    }

    /// An unknown option, with the nearest known one when one is near.
    private func unknown(_ spelled: String, word: String? = nil) -> UsageError {
        var candidates: [String] = [ProgramOption.help, ProgramOption.version]
        for option in options where option.name.help != nil {
            if let long = option.name.long { candidates.append("--" + long) }
            if let letter = option.name.letter { candidates.append("-" + String(decoding: [letter], as: UTF8.self)) }
        }
        let shown = PrintableText.escaped(word ?? spelled)
        let what = word.map { _ in "unknown option '\(PrintableText.escaped(spelled))' in '\(shown)'" } ?? "unknown option '\(shown)'"
        // A peer's letter that reach reads otherwise, or not at all: the option that does its job.
        for option in options {
            if let peer = option.name.peer, peer.spelled == spelled {
                return UsageError("\(about.context)\(what); \(peer.tool)'s \(peer.spelled) is '\(option.name.spelled)'")
            }
        }
        if let nearest = Suggestion.nearest(to: spelled, among: candidates) {
            return UsageError("\(about.context)\(what); did you mean '\(nearest)'?")
        }
        return UsageError("\(about.context)\(what) (see '\(about.path) \(ProgramOption.help)')")
    }
}

/// The words of a command line, read one at a time.
struct WordReader {
    let words: ArraySlice<String>
    var index: Int
    var optionsEnded = false
    /// The typed options' values, to convert once every word is read: each option's index
    /// among the declarations, and its text (two arrays: an array of pairs would be one more
    /// type for the runtime to make at every start).
    var typedOptions: [Int] = []
    var typedTexts: [String] = []

    init(words: ArraySlice<String>) {
        self.words = words
        self.index = words.startIndex
    }

    /// Keeps a typed option's value: every one of a repeatable option, else the last.
    mutating func keep(_ option: Int, _ text: String, repeats: Bool) {
        if !repeats, let earlier = typedOptions.firstIndex(of: option) {
            typedOptions.remove(at: earlier)
            typedTexts.remove(at: earlier)
        }
        typedOptions.append(option)
        typedTexts.append(text)
    }

    mutating func next() -> String? {
        guard index < words.endIndex else { return nil }
        defer { index += 1 }
        return words[index]
    }

    /// The word after a value option, if it may be its value.
    mutating func value(for option: OptionName, _ parsing: ValueParsing, context: String) throws(UsageError) -> String {
        guard index < words.endIndex else { throw UsageError("\(context)\(option.spelled) needs a value (\(option.spelledWithValue))") }
        let word = words[index]
        if parsing == .next && word.utf8.count > 1 && word.utf8.first == UInt8(ascii: "-") {
            let shown = PrintableText.escaped(word)
            throw UsageError("\(context)\(option.spelled) needs a value (\(option.spelledWithValue)), and '\(shown)' is an option")
        }
        index += 1
        return word
    }
}

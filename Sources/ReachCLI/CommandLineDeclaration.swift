/// A subcommand's command line declared once: its operand and, for each option, the short
/// letter and long name, whether it takes a value, and the field of `Options` it sets.
///
/// Two readers work from it. The fast reader below (`read`) takes the plain getopt forms
/// without ArgumentParser, from this table alone. ArgumentParser's reader is the
/// subcommand's ParsableCommand, whose properties cannot be generated from a table: a test
/// holds them to the declaration instead (same names, arity, value parsing and field, and
/// nothing more), as PingDeclarationTests does for `reach ping`.
///
/// The field an option sets is a closure that hands it, inout, to the reader: `{ $1(&$0.count) }`.
/// Not a key path: instantiating one costs 22 K instructions at start-up (the runtime
/// demangles its root and value types), and `reach ping` would pay it for each option.
struct CommandLineDeclaration<Options>: Sendable {
    /// Where the one operand goes (ping's host).
    let operand: OptionField<Options, String>
    let options: [OptionDeclaration<Options>]

    /// The option whose short name is `letter`.
    func option(letter: UInt8) -> OptionDeclaration<Options>? {
        for option in options where option.letter == letter { return option }
        return nil
    }

    /// The option whose long name is `name` (the word without its two dashes).
    func option<Name: Collection<UInt8>>(long name: Name) -> OptionDeclaration<Options>? {
        for option in options {
            if let long = option.long, long.utf8.elementsEqual(name) { return option }
        }
        return nil
    }
}

/// One field of `Options`, as a declaration names it: the closure calls its second argument
/// with the field, inout, and returns what that returns (false: the field was set before).
typealias OptionField<Options, Value> = @Sendable (inout Options, (inout Value) -> Bool) -> Bool

/// One option: `-c COUNT`, `-q`, `--json`.
struct OptionDeclaration<Options>: Sendable {
    /// The short name, an ASCII letter or digit (`c` of `-c`); nil for a long-only option.
    let letter: UInt8?
    /// The long name without its dashes (`json` of `--json`); nil for a short-only option.
    let long: String?
    /// Whether it takes a value, and what it sets.
    let setting: Setting

    enum Setting: Sendable {
        /// A flag, which takes no value: sets its field to true. Given twice, it is an error.
        case flag(OptionField<Options, Bool>)
        /// An option with one value: stores the value's text (checked after reading, the same
        /// for both readers). Given twice, it is an error.
        case value(OptionField<Options, String?>, ValueParsing)
    }

    static func flag(_ letter: Unicode.Scalar, _ field: @escaping OptionField<Options, Bool>) -> Self {
        Self(letter: UInt8(ascii: letter), long: nil, setting: .flag(field))
    }

    static func flag(long: String, _ field: @escaping OptionField<Options, Bool>) -> Self {
        Self(letter: nil, long: long, setting: .flag(field))
    }

    static func value(_ letter: Unicode.Scalar, _ parsing: ValueParsing, _ field: @escaping OptionField<Options, String?>) -> Self {
        Self(letter: UInt8(ascii: letter), long: nil, setting: .value(field, parsing))
    }
}

/// Which word after an option may be its value: ArgumentParser's SingleValueParsingStrategy,
/// of which the declarations use two.
enum ValueParsing: Sendable {
    /// `.next`: the next word unless it looks like an option (`-I -q` lacks its value).
    case next
    /// `.unconditional`: whatever word comes next (`-c -1` is a wrong count, not a missing one).
    case unconditional
}

// MARK: - The fast reader

extension CommandLineDeclaration {
    /// The options `words` give, read as getopt(3) reads them (`-c 5`, `-c5`, grouped flags
    /// such as `-qn`, options before or after the operand), starting from `initial`; nil for
    /// anything else, which ArgumentParser reads and, if it is a mistake, explains: help,
    /// unknown or repeated options, a missing value, `--`, a second or no operand, a long
    /// option with a value.
    func read(_ words: ArraySlice<String>, into initial: Options) -> Options? {
        var options = initial
        var hasOperand = false
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            index += 1
            let bytes = Array(word.utf8)
            if bytes.count > 2, bytes[0] == UInt8(ascii: "-"), bytes[1] == UInt8(ascii: "-") {
                // A long flag (`--json`); a long option's value (`--name value`, `--name=value`) is left to ArgumentParser.
                guard let option = option(long: bytes[2...]), case .flag(let field) = option.setting,
                    field(&options, Self.set)
                else { return nil }
            } else if bytes.count >= 2, bytes[0] == UInt8(ascii: "-"), bytes[1] != UInt8(ascii: "-") {
                // One value option, its value joined or next; or a group of flags.
                if let option = option(letter: bytes[1]), case .value(let field, let parsing) = option.setting {
                    let value: String
                    if bytes.count > 2 {
                        // `-c5`; a joined value that could read as an option is left to ArgumentParser.
                        guard !bytes[2...].contains(UInt8(ascii: "-")), !bytes[2...].contains(UInt8(ascii: "=")) else { return nil }
                        value = String(decoding: bytes[2...], as: UTF8.self)
                    } else {
                        guard index < words.endIndex else { return nil }
                        value = words[index]
                        index += 1
                        // `.next` takes no option-like value; `.unconditional` takes any word.
                        if parsing == .next && (value.hasPrefix("-") || value.isEmpty) { return nil }
                        // ArgumentParser ends options at `--` and looks for help anywhere, values included.
                        if value == "--" || Self.isHelpRequest(value) { return nil }
                    }
                    guard field(&options, { Self.store(value, in: &$0) }) else { return nil }
                } else {
                    for letter in bytes[1...] {
                        guard let option = option(letter: letter), case .flag(let field) = option.setting,
                            field(&options, Self.set)
                        else { return nil }
                    }
                }
            } else if !bytes.isEmpty, bytes[0] != UInt8(ascii: "-") {
                guard !hasOperand else { return nil }
                _ = operand(&options) { Self.store(word, in: &$0) }
                hasOperand = true
            } else {
                return nil  // "-", "--", ""
            }
        }
        return hasOperand ? options : nil
    }

    /// getopt's rule that ArgumentParser lacks: a group of flags may end in a value option,
    /// so `-qc1` is `-q -c1` and `-nqc 3` is `-nq -c 3` (`ping -qc1 HOST` is common in
    /// scripts). Splits such words in two; every other word, the word after a value option
    /// that waits for it, and everything after `--` are kept as they are.
    func splittingFlagGroups(_ words: ArraySlice<String>) -> [String] {
        var split: [String] = []
        split.reserveCapacity(words.count + 1)
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            index += 1
            if word == "--" {
                split.append(contentsOf: words[(index - 1)...])
                break
            }
            let bytes = Array(word.utf8)
            guard bytes.count >= 2, bytes[0] == UInt8(ascii: "-"), bytes[1] != UInt8(ascii: "-") else {
                split.append(word)
                continue
            }
            // The flags before the first value option, if all of them are flags.
            guard let valueAt = bytes.indices.dropFirst().first(where: { takesValue(bytes[$0]) }),
                bytes[1..<valueAt].allSatisfy(isFlag)
            else {
                split.append(word)
                continue
            }
            if valueAt > 1 {
                split.append(String(decoding: bytes[0..<valueAt], as: UTF8.self))
                split.append("-" + String(decoding: bytes[valueAt...], as: UTF8.self))
            } else {
                split.append(word)
            }
            // `-c` alone: its value is the next word, whatever it looks like.
            if valueAt == bytes.count - 1, index < words.endIndex {
                split.append(words[index])
                index += 1
            }
        }
        return split
    }

    private func isFlag(_ letter: UInt8) -> Bool {
        if case .flag = option(letter: letter)?.setting { true } else { false }
    }

    private func takesValue(_ letter: UInt8) -> Bool {
        if case .value = option(letter: letter)?.setting { true } else { false }
    }

    /// Sets a flag; false when it was set before.
    private static func set(_ flag: inout Bool) -> Bool {
        guard !flag else { return false }
        flag = true
        return true
    }

    /// Stores a value; false when there was one before.
    private static func store(_ value: String, in slot: inout String?) -> Bool {
        guard slot == nil else { return false }
        slot = value
        return true
    }

    /// Stores the operand.
    private static func store(_ value: String, in slot: inout String) -> Bool {
        slot = value
        return true
    }

    /// The words by which ArgumentParser prints help or the version.
    private static func isHelpRequest(_ word: String) -> Bool {
        word == "-h" || word == "--help" || word == "-help" || word == "--version"
    }
}

/// A subcommand's command line declared once: its operand and, for each option, the short
/// letter and long name, whether it takes a value (and how many times), and how it sets
/// the subcommand's `Options`.
///
/// Two readers work from it. The fast reader below (`read`) takes the plain forms without
/// ArgumentParser, from this table alone. ArgumentParser's reader is the subcommand's
/// ParsableCommand, whose properties cannot be generated from a table: a test holds them to
/// the declaration instead (same names, arity, value parsing, repeatability and field, and
/// nothing more), CommandLineDeclarationTests for every subcommand.
///
/// An option sets its field through a closure: `{ $0.count = $1 }`. Not a key path:
/// instantiating one costs 22 K instructions at start-up (the runtime demangles its root and
/// value types), and every run would pay it for each option. Options shared by several
/// subcommands (PathOptions, OutputOptions, ProbeOptions) are declared once as a group and
/// lifted into each subcommand's declaration (`member`), as ArgumentParser's @OptionGroup.
struct CommandLineDeclaration<Options>: Sendable {
    let operand: Operand
    let options: [OptionDeclaration<Options>]

    /// `options` holds the subcommand's own and its groups' (`+ PathOptions.commandLine { $1(&$0.path) }`):
    /// one array, not an array of arrays, which would be one more type for the runtime to make.
    init(operand: Operand, options: [OptionDeclaration<Options>]) {
        // The fast reader keeps which options it has seen in the bits of a UInt64.
        precondition(options.count <= 64, "at most 64 options")
        self.operand = operand
        self.options = options
    }

    /// The words that are not options: none (`status`), exactly one, at most one, or any
    /// number (the targets of `host`, `addr`, `watch` and `ping`: ArgumentParser's array
    /// argument, whose words may come between options). `execute()` refuses a run with no
    /// target at all, the same for both readers.
    enum Operand: Sendable {
        case none
        case required(@Sendable (inout Options, String) -> Void)
        case optional(@Sendable (inout Options, String) -> Void)
        /// Each word appended, in order.
        case variadic(@Sendable (inout Options, String) -> Void)
    }

    /// The option whose short name is `letter`, and its position.
    func option(letter: UInt8) -> (position: Int, option: OptionDeclaration<Options>)? {
        for (position, option) in options.enumerated() where option.letter == letter { return (position, option) }
        return nil
    }

    /// The option whose long name is `name` (the word without its two dashes), and its position.
    func option<Name: Collection<UInt8>>(long name: Name) -> (position: Int, option: OptionDeclaration<Options>)? {
        for (position, option) in options.enumerated() {
            if let long = option.long, long.utf8.elementsEqual(name) { return (position, option) }
        }
        return nil
    }
}

/// A group's field of `Options`: the closure calls its second argument with the field, inout,
/// and returns what that returns.
typealias GroupField<Options, Group> = @Sendable (inout Options, (inout Group) -> Bool) -> Bool

/// One option: `-c COUNT`, `-q`, `--json`, `--timeout DURATION`, `--probe SPEC` (repeatable).
struct OptionDeclaration<Options>: Sendable {
    /// The short name, an ASCII letter or digit (`c` of `-c`); nil for a long-only option.
    /// A short option with a value also takes it joined (`-c5`: ArgumentParser's `allowingJoined`).
    let letter: UInt8?
    /// The long name without its dashes (`json` of `--json`); nil for a short-only option.
    /// A long option with a value takes it as the next word or after `=` (`--timeout=5s`).
    let long: String?
    /// Whether it takes a value, and what it sets.
    let setting: Setting

    enum Setting: Sendable {
        /// A flag, which takes no value: sets its field to true. Given twice, it is an error.
        case flag(@Sendable (inout Options) -> Void)
        /// An option with a value, which `store` sets; `store` answers false when the text is
        /// no value of the field's type (ArgumentParser's `init?(argument:)` failing), which
        /// ArgumentParser explains. Text values are stored as given and checked after reading,
        /// the same for both readers. Given twice, it is an error unless `repeats` (an array).
        case value(ValueParsing, repeats: Bool, store: @Sendable (inout Options, String) -> Bool)
    }

    static func flag(_ letter: Unicode.Scalar, long: String? = nil, _ set: @escaping @Sendable (inout Options) -> Void) -> Self {
        Self(letter: UInt8(ascii: letter), long: long, setting: .flag(set))
    }

    static func flag(long: String, _ set: @escaping @Sendable (inout Options) -> Void) -> Self {
        Self(letter: nil, long: long, setting: .flag(set))
    }

    /// `-c VALUE`, stored as text.
    static func value(
        _ letter: Unicode.Scalar, _ parsing: ValueParsing, _ set: @escaping @Sendable (inout Options, String) -> Void
    ) -> Self {
        Self(letter: UInt8(ascii: letter), long: nil, setting: .value(parsing, repeats: false, store: Self.storing(set)))
    }

    /// `--name VALUE`, stored as text.
    static func value(long: String, _ parsing: ValueParsing, _ set: @escaping @Sendable (inout Options, String) -> Void) -> Self {
        Self(letter: nil, long: long, setting: .value(parsing, repeats: false, store: Self.storing(set)))
    }

    /// `--name VALUE ...`, each value appended as text.
    static func values(long: String, _ parsing: ValueParsing, _ append: @escaping @Sendable (inout Options, String) -> Void) -> Self {
        Self(letter: nil, long: long, setting: .value(parsing, repeats: true, store: Self.storing(append)))
    }

    /// `--name N`: an integer, read as ArgumentParser reads one (`Int("7")`, no spaces, no 0x).
    static func integer<Integer: FixedWidthInteger & SendableMetatype>(
        long: String, _ parsing: ValueParsing, _ set: @escaping @Sendable (inout Options, Integer) -> Void
    ) -> Self {
        Self(
            letter: nil, long: long,
            setting: .value(parsing, repeats: false) { options, text in
                guard let value = Integer(text) else { return false }
                set(&options, value)
                return true
            })
    }

    private static func storing(_ set: @escaping @Sendable (inout Options, String) -> Void) -> @Sendable (inout Options, String) -> Bool {
        { options, text in
            set(&options, text)
            return true
        }
    }

    /// A group's option (PathOptions' `-4`), declared for each subcommand that has the group:
    /// it sets its field inside the field of `Options` that `group` names. A group declares
    /// its options in a generic function of its own (`PathOptions.commandLine(in:)`), not in
    /// an array of its own type: the first array of each new element type costs the runtime
    /// about 17 K instructions to make its type, at every start.
    static func member<Group>(_ option: OptionDeclaration<Group>, in group: @escaping GroupField<Options, Group>) -> Self {
        option.lifted(group)
    }

    /// The same option, setting its field inside the field of `Outer` that `group` names.
    func lifted<Outer>(_ group: @escaping GroupField<Outer, Options>) -> OptionDeclaration<Outer> {
        switch setting {
        case .flag(let set):
            return OptionDeclaration<Outer>(
                letter: letter, long: long,
                setting: .flag { outer in
                    _ = group(&outer) { inner in
                        set(&inner)
                        return true
                    }
                })
        case .value(let parsing, let repeats, let store):
            return OptionDeclaration<Outer>(
                letter: letter, long: long,
                setting: .value(parsing, repeats: repeats) { outer, text in group(&outer) { store(&$0, text) } })
        }
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
    /// The options `words` give, read as getopt(3) and getopt_long(3) read them (`-c 5`,
    /// `-c5`, grouped flags such as `-qn`, `--timeout 5s`, `--timeout=5s`, options before or
    /// after the operand), starting from `initial`; nil for anything else, which
    /// ArgumentParser reads and, if it is a mistake, explains: help, unknown or repeated
    /// options, a missing or mistyped value, `--`, an operand too many or missing.
    func read(_ words: ArraySlice<String>, into initial: Options) -> Options? {
        var options = initial
        var seen: UInt64 = 0
        var hasOperand = false
        var index = words.startIndex
        // Marks the option at `position` as given; false when it was, and may not be again.
        func firstUse(_ position: Int, of option: OptionDeclaration<Options>) -> Bool {
            let bit: UInt64 = 1 << UInt64(position)
            if seen & bit != 0, case .value(_, true, _) = option.setting { return true }
            guard seen & bit == 0 else { return false }
            seen |= bit
            return true
        }
        // The word after a value option, if it may be its value.
        func nextValue(_ parsing: ValueParsing) -> String? {
            guard index < words.endIndex else { return nil }
            let value = words[index]
            index += 1
            // `.next` takes no option-like value; `.unconditional` takes any word, but
            // ArgumentParser still reads every word for help, the version and completions
            // (`-qh` is help, `---json` an invalid option): of the option-like words, only a
            // negative number's (`-1`, `-0.5`, `-1s`) is taken here.
            if parsing == .next && (value.hasPrefix("-") || value.isEmpty) { return nil }
            if value.hasPrefix("-") && !Self.isNegativeNumber(value) { return nil }
            return value
        }
        while index < words.endIndex {
            let word = words[index]
            index += 1
            let bytes = Array(word.utf8)
            if bytes.count > 2, bytes[0] == UInt8(ascii: "-"), bytes[1] == UInt8(ascii: "-") {
                // `--json`, `--timeout 5s`, `--timeout=5s`.
                let nameEnd = bytes.firstIndex(of: UInt8(ascii: "=")) ?? bytes.endIndex
                guard let (position, option) = option(long: bytes[2..<nameEnd]), firstUse(position, of: option) else { return nil }
                switch option.setting {
                case .flag(let set):
                    guard nameEnd == bytes.endIndex else { return nil }  // `--json=1`
                    set(&options)
                case .value(let parsing, _, let store):
                    let value: String
                    if nameEnd < bytes.endIndex {
                        value = String(decoding: bytes[(nameEnd + 1)...], as: UTF8.self)
                        // An empty or option-like joined value is left to ArgumentParser to judge.
                        guard !value.isEmpty, !value.hasPrefix("-") else { return nil }
                    } else {
                        guard let next = nextValue(parsing) else { return nil }
                        value = next
                    }
                    guard store(&options, value) else { return nil }
                }
            } else if bytes.count >= 2, bytes[0] == UInt8(ascii: "-"), bytes[1] != UInt8(ascii: "-") {
                // One value option, its value joined or next; or a group of flags.
                if let (position, option) = option(letter: bytes[1]), case .value(let parsing, _, let store) = option.setting {
                    guard firstUse(position, of: option) else { return nil }
                    let value: String
                    if bytes.count > 2 {
                        // `-c5`; a joined value that could read as an option is left to ArgumentParser.
                        guard !bytes[2...].contains(UInt8(ascii: "-")), !bytes[2...].contains(UInt8(ascii: "=")) else { return nil }
                        value = String(decoding: bytes[2...], as: UTF8.self)
                    } else {
                        guard let next = nextValue(parsing) else { return nil }
                        value = next
                    }
                    guard store(&options, value) else { return nil }
                } else {
                    for letter in bytes[1...] {
                        guard let (position, option) = option(letter: letter), case .flag(let set) = option.setting,
                            firstUse(position, of: option)
                        else { return nil }
                        set(&options)
                    }
                }
            } else if !bytes.isEmpty, bytes[0] != UInt8(ascii: "-") {
                switch operand {
                case .none: return nil
                case .required(let set), .optional(let set):
                    guard !hasOperand else { return nil }
                    set(&options, word)
                    hasOperand = true
                case .variadic(let append):
                    append(&options, word)
                }
            } else {
                return nil  // "-", "--", ""
            }
        }
        if case .required = operand, !hasOperand { return nil }
        return options
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
        if case .flag = option(letter: letter)?.option.setting { true } else { false }
    }

    private func takesValue(_ letter: UInt8) -> Bool {
        if case .value = option(letter: letter)?.option.setting { true } else { false }
    }

    /// `-` then a digit or a point: `-1`, `-0.5`, `-1s`.
    private static func isNegativeNumber(_ word: String) -> Bool {
        let bytes = word.utf8.dropFirst()
        guard let first = bytes.first else { return false }
        return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) || first == UInt8(ascii: ".")
    }
}

/// What help, completions and the man page check need to know of an option, without the
/// type of the options it sets. A class, not a struct: a command's declarations are copied
/// into its list and walked for every word, and a struct of eight counted fields is retained
/// and released field by field at each copy, which `make bench` counted at every start.
public final class OptionName: Sendable, Equatable {
    /// The short name, an ASCII letter or digit (`c` of `-c`); nil for a long-only option.
    public let letter: UInt8?
    /// The long name without its dashes (`json` of `--json`); nil for a short-only option.
    public let long: String?
    /// The value's name in help (`count` of `-c <count>`); nil for a flag.
    public let valueName: String?
    /// One line of help; nil: hidden from help and completions (test-only options). Written
    /// only when read: most runs print no help, and the figures a line interpolates (ranges,
    /// defaults, other options' names) would cost every start.
    public var help: String? { helpLine() }
    private let helpLine: HelpLine
    /// How a help line is given: made when help or completions are printed.
    public typealias HelpLine = @Sendable () -> String?
    /// Whether it may be given more than once, each value kept.
    public let repeats: Bool
    /// The value when the option is not given, shown in help (`5s`).
    public let defaultValue: String?
    /// The values taken, shown in help before the default (`1-1024`); from the value's type.
    public let range: String?
    /// Whether its value is converted to a type (`typed`), once every word is read.
    public let typed: Bool
    /// The peer tool's letter for this option's job (fping's `-g` for `--generate`), where
    /// reach does not read that letter as the peer does: an unknown option spelled so is
    /// told this option's name.
    public let peer: PeerOption?
    /// The words the value may be, for completions (`-M`: do, want, dont); empty: any.
    public let choices: [String]

    public convenience init(
        letter: UInt8?, long: String?, valueName: String?, help: @autoclosure @escaping HelpLine, repeats: Bool,
        defaultValue: String? = nil
    ) {
        self.init(
            letter: letter, long: long, valueName: valueName, helpLine: help, repeats: repeats, defaultValue: defaultValue,
            range: nil, typed: false, peer: nil, choices: [])
    }

    private init(
        letter: UInt8?, long: String?, valueName: String?, helpLine: @escaping HelpLine, repeats: Bool, defaultValue: String?,
        range: String?, typed: Bool, peer: PeerOption?, choices: [String]
    ) {
        self.letter = letter
        self.long = long
        self.valueName = valueName
        self.helpLine = helpLine
        self.repeats = repeats
        self.defaultValue = defaultValue
        self.range = range
        self.typed = typed
        self.peer = peer
        self.choices = choices
    }

    public var takesValue: Bool { valueName != nil }

    public static func == (left: OptionName, right: OptionName) -> Bool {
        left.letter == right.letter && left.long == right.long && left.valueName == right.valueName && left.help == right.help
            && left.repeats == right.repeats && left.defaultValue == right.defaultValue && left.range == right.range
            && left.typed == right.typed && left.peer == right.peer && left.choices == right.choices
    }

    /// The same name, of a typed option whose type takes `range`.
    @usableFromInline
    func typed(ranging range: String?) -> OptionName {
        changed(range: range, typed: true)
    }

    /// The same name, its value one of `choices`.
    func offering(_ choices: [String]) -> OptionName {
        changed(choices: choices)
    }

    /// The same name, with the peer tool's letter for its job.
    func standing(for peer: PeerOption) -> OptionName {
        changed(peer: peer)
    }

    private func changed(range: String?? = nil, typed: Bool? = nil, peer: PeerOption?? = nil, choices: [String]? = nil) -> OptionName {
        OptionName(
            letter: letter, long: long, valueName: valueName, helpLine: helpLine, repeats: repeats, defaultValue: defaultValue,
            range: range ?? self.range, typed: typed ?? self.typed, peer: peer ?? self.peer, choices: choices ?? self.choices)
    }

    /// `-c`, or `--json` when it has a long name: what an error message calls it.
    public var spelled: String {
        if let long { return "--" + long }
        return letter.map { "-" + String(UnicodeScalar($0)) } ?? ""
    }

    /// `-c <count>`, `--probe <spec>`, `--json`: the option as an error message shows it.
    public var spelledWithValue: String {
        valueName.map { spelled + " <" + $0 + ">" } ?? spelled
    }
}

/// Another tool's spelling of an option: `fping -g`.
public struct PeerOption: Sendable, Equatable {
    public let tool: String
    /// With its dash: `-g`.
    public let spelled: String

    public init(tool: String, letter: Unicode.Scalar) {
        self.tool = tool
        self.spelled = "-" + String(letter)
    }
}

/// One option: `-c COUNT`, `-q`, `--json`, `--timeout DURATION`, `--probe SPEC` (repeatable):
/// its names and help (`name`), and how it sets a field of `Options`.
///
/// An option sets its field through a closure (`{ $0.count = $1 }`), not a key path: making
/// a key path makes the runtime demangle its root and value types at every start.
public struct OptionDeclaration<Options>: Sendable {
    public let name: OptionName
    public let setting: Setting

    public enum Setting: Sendable {
        /// A flag, which takes no value: sets its field to true.
        case flag(@Sendable (inout Options) -> Void)
        /// An option with a value, which `store` converts and sets; `store` answers what is
        /// wrong with a text that is no value of the option's type, which the reader reports
        /// naming the option. Text values are stored as given.
        case value(ValueParsing, store: @Sendable (inout Options, String) -> ValueProblem?)
    }

    public init(name: OptionName, setting: Setting) {
        self.name = name
        self.setting = setting
    }

    /// `-c`, or `--json`: how a message names the option.
    public var spelled: String { name.spelled }

    /// `-q`, or `-q, --quiet`.
    public static func flag(
        _ letter: Unicode.Scalar, long: String? = nil, help: @autoclosure @escaping OptionName.HelpLine,
        _ set: @escaping @Sendable (inout Options) -> Void
    ) -> Self {
        Self(name: OptionName(letter: UInt8(ascii: letter), long: long, valueName: nil, help: help(), repeats: false), setting: .flag(set))
    }

    /// `--json`.
    public static func flag(
        long: String, help: @autoclosure @escaping OptionName.HelpLine, _ set: @escaping @Sendable (inout Options) -> Void
    ) -> Self {
        Self(name: OptionName(letter: nil, long: long, valueName: nil, help: help(), repeats: false), setting: .flag(set))
    }

    /// `-c VALUE` (also `-c5`), stored as text.
    public static func value(
        _ letter: Unicode.Scalar, _ parsing: ValueParsing, valueName: String, help: @autoclosure @escaping OptionName.HelpLine,
        _ set: @escaping @Sendable (inout Options, String) -> Void
    ) -> Self {
        Self(
            name: OptionName(letter: UInt8(ascii: letter), long: nil, valueName: valueName, help: help(), repeats: false),
            setting: .value(parsing, store: storing(set)))
    }

    /// `--name VALUE` (also `--name=VALUE`), stored as text.
    public static func value(
        long: String, _ parsing: ValueParsing, valueName: String, default defaultValue: String? = nil,
        help: @autoclosure @escaping OptionName.HelpLine,
        _ set: @escaping @Sendable (inout Options, String) -> Void
    ) -> Self {
        Self(
            name: OptionName(letter: nil, long: long, valueName: valueName, help: help(), repeats: false, defaultValue: defaultValue),
            setting: .value(parsing, store: storing(set)))
    }

    /// `--name VALUE ...`, each value appended as text.
    public static func values(
        long: String, _ parsing: ValueParsing, valueName: String, help: @autoclosure @escaping OptionName.HelpLine,
        _ append: @escaping @Sendable (inout Options, String) -> Void
    ) -> Self {
        Self(
            name: OptionName(letter: nil, long: long, valueName: valueName, help: help(), repeats: true),
            setting: .value(parsing, store: storing(append)))
    }

    /// `--name N`: a decimal integer (`7`, `-1`; no spaces, no 0x).
    public static func integer<Integer: FixedWidthInteger & SendableMetatype>(
        long: String, _ parsing: ValueParsing, valueName: String, help: @autoclosure @escaping OptionName.HelpLine,
        _ set: @escaping @Sendable (inout Options, Integer) -> Void
    ) -> Self {
        Self(
            name: OptionName(letter: nil, long: long, valueName: valueName, help: help(), repeats: false),
            setting: .value(parsing) { options, text in
                guard let value = Integer(text) else { return .notAValue }
                set(&options, value)
                return nil
            })
    }

    /// `-i SECONDS`, `--timeout DURATION`: a value of `Value`'s type, which `type` reads from
    /// the text, says in help (its default, its range) and says the problem of. `repeats`:
    /// each value is kept (`set` appends it).
    @inlinable
    public static func typed<Value>(
        _ letter: Unicode.Scalar? = nil, long: String? = nil, _ type: ValueType<Value>, _ parsing: ValueParsing = .unconditional,
        valueName: String, default defaultValue: Value? = nil, repeats: Bool = false, help: @autoclosure @escaping OptionName.HelpLine,
        _ set: @escaping @Sendable (inout Options, Value) -> Void
    ) -> Self {
        let name = OptionName(
            letter: letter.map { UInt8(ascii: $0) }, long: long, valueName: valueName, help: help(), repeats: repeats,
            defaultValue: defaultValue.map(type.written))
        return Self(
            name: name.typed(ranging: type.range),
            setting: .value(parsing) { options, text in
                switch type.read(text) {
                case .success(let value):
                    set(&options, value)
                    return nil
                case .failure(let problem):
                    return problem
                }
            })
    }

    /// The same option, with the letter `tool` gives its job: `.standing(for: "fping", letter: "g")`
    /// for `--generate`.
    public func standing(for tool: String, letter: Unicode.Scalar) -> Self {
        Self(name: name.standing(for: PeerOption(tool: tool, letter: letter)), setting: setting)
    }

    /// The same option, its value one of `choices` (completions offer them; the command
    /// still checks the value, and says what it takes).
    public func offering(_ choices: [String]) -> Self {
        Self(name: name.offering(choices), setting: setting)
    }

    private static func storing(
        _ set: @escaping @Sendable (inout Options, String) -> Void
    ) -> @Sendable (inout Options, String) -> ValueProblem? {
        { options, text in
            set(&options, text)
            return nil
        }
    }

    /// A group's option (PathOptions' `-4`), declared for each command that has the group:
    /// it sets its field inside the field of `Options` that `group` names. A group declares
    /// its options in a generic function of its own, not in an array of its own type: the
    /// first array of each new element type costs the runtime a type to make at every start.
    public static func member<Group>(_ option: OptionDeclaration<Group>, in group: @escaping GroupField<Options, Group>) -> Self {
        switch option.setting {
        case .flag(let set):
            return Self(
                name: option.name,
                setting: .flag { outer in
                    _ = group(&outer) { inner in
                        set(&inner)
                        return nil
                    }
                })
        case .value(let parsing, let store):
            return Self(name: option.name, setting: .value(parsing) { outer, text in group(&outer) { store(&$0, text) } })
        }
    }
}

/// A group's field of `Options`: the closure calls its second argument with the field, inout,
/// and returns what that returns.
public typealias GroupField<Options, Group> = @Sendable (inout Options, (inout Group) -> ValueProblem?) -> ValueProblem?

/// Which word after an option may be its value (getopt_long(3) takes any; a few options here
/// refuse an option-like one, so that `-I -q` says the value is missing).
public enum ValueParsing: Sendable {
    /// The next word unless it looks like an option (`-I -q` lacks its value).
    case next
    /// Whatever word comes next (`-c -1` is a wrong count, not a missing one).
    case unconditional
}

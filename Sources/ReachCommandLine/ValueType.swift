/// The type of an option's value, declared once with the option (as ripgrep's flags declare
/// theirs, crates/core/flags/defs.rs): how the text becomes a value, how a value is written
/// (help's default), and the range taken, said in help. Types that need the system's
/// (a TimeSpan) are made by the modules that declare their options.
public struct ValueType<Value>: Sendable {
    /// The value of the text, or what is wrong with it.
    public let read: @Sendable (String) -> Result<Value, ValueProblem>
    /// A value as help writes its default: `5s`, `0.5`.
    public let written: @Sendable (Value) -> String
    /// The range taken, as help says it (`1-1024`); nil: help says none.
    public let range: String?

    public init(
        range: String? = nil, written: @escaping @Sendable (Value) -> String,
        read: @escaping @Sendable (String) -> Result<Value, ValueProblem>
    ) {
        self.read = read
        self.written = written
        self.range = range
    }
}

/// What is wrong with an option's value. The reader's message starts with the option's name
/// from its declaration, so no message spells an option again.
public enum ValueProblem: Error, Sendable, Equatable {
    /// No value of the option's type: "-c <count>: 'x' is not a valid value".
    case notAValue
    /// The rest of the sentence after the option's name: `: 'x' is not a count from 1 to 9`,
    /// ` must be more than 0 seconds`.
    case said(String)
}

/// The program's own options, which no command declares: each spelled here once, for the
/// readers (`reach`'s and `reach-exporter`'s), help, the completions and the messages.
public enum ProgramOption {
    /// `-h` and `--help`: the help of the program, or of the command they follow.
    public static let helpLetter = "-h"
    public static let help = "--help"
    public static let version = "--version"
    /// Prints the completion script of the shell named after it.
    public static let completionScript = "--generate-completion-script"
    /// Prints every declared option, which `make lint` compares with the man page.
    public static let listOptions = "--list-options"

    /// Help's entries for `--version` and `-h, --help`.
    public static var helpEntries: [HelpText.Entry] {
        [HelpText.Entry(version, "Show the version."), HelpText.Entry(helpLetter + ", " + help, "Show help information.")]
    }

    /// The word a long option is read from: `help` of `--help`.
    static func longName(_ option: String) -> String { String(option.dropFirst(2)) }
}

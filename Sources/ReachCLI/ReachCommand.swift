import ReachCommandLine
import ReachCore
import ReachSystem

/// `reach`: its commands, and what a command line asks for. Bare `reach` runs `status`, and
/// so does a command line that starts with an option (`reach --json`).
public enum ReachCommand {
    public static let version = ReachVersion.current

    static let about = CommandAbout(
        path: "reach",
        abstract: "Is the network up, can I get there, and how fast does it answer.",
        discussion: """
            Exit status: 0 reachable, 1 not reachable, 2 name not resolved, \
            64 usage error, 71 system failure, 77 not permitted.
            """)

    /// The commands, in the order help lists them.
    static let names = ["status", "host", "addr", "watch", "ping", "trace"]

    /// The options every command has besides its own, as help lists them.
    static var builtinOptions: [HelpText.Entry] { ProgramOption.helpEntries }

    /// What `arguments` (the words after `reach`) ask for; a usage error says what is wrong.
    static func request(_ arguments: [String]) throws(UsageError) -> ReachRequest {
        guard let first = arguments.first else { return .run(.status(StatusOptions())) }
        let words = arguments.dropFirst()
        // No Dictionary from names to readers: a first Dictionary of a new type costs a scan
        // of the binary's protocol conformances.
        switch first {
        case "status": return try read(words, StatusOptions.commandLine, StatusOptions(), ReachInvocation.status)
        case "host": return try read(words, HostOptions.commandLine, HostOptions(), ReachInvocation.host)
        case "addr": return try read(words, AddrOptions.commandLine, AddrOptions(), ReachInvocation.addr)
        case "watch": return try read(words, WatchOptions.commandLine, WatchOptions(), ReachInvocation.watch)
        case "ping": return try read(words, PingOptions.commandLine, PingOptions(), ReachInvocation.ping)
        case "trace": return try read(words, TraceOptions.commandLine, TraceOptions(), ReachInvocation.trace)
        case "help": return .text(try helpTopic(words))
        case ProgramOption.helpLetter, ProgramOption.help, "-help": return .text(programHelp())
        case ProgramOption.version: return .text("reach \(version)\n")
        case ProgramOption.completionScript:
            guard words.count == 1, let shell = words.first else { throw Completions.shellMissing }
            return .text(try Completions.script(for: shell, program: completionProgram()))
        case ProgramOption.listOptions:
            return .text(OptionList.text(commands()))
        default:
            if first.hasPrefix("-") { return try read(arguments[...], StatusOptions.commandLine, StatusOptions(), ReachInvocation.status) }
            throw unknownCommand(first)
        }
    }

    /// A first word that is no command: the nearest command, or, for what reads as a target,
    /// the commands that take one (`reach 198.18.0.1`, `reach db.example`).
    private static func unknownCommand(_ word: String) -> UsageError {
        let known = names.joined(separator: ", ")
        let shown = PrintableText.escaped(word)
        if let nearest = Suggestion.nearest(to: word, among: names) {
            return UsageError("unknown command '\(shown)'; did you mean '\(nearest)'? (commands: \(known))")
        }
        if (try? IPAddress.parse(word)) != nil {
            return UsageError("unknown command '\(shown)'; for an address, 'reach addr \(shown)' or 'reach ping \(shown)'")
        }
        // A dotted name (or localhost): a one-word typo of a command stays a typo.
        if word.contains(".") || word == "localhost", (try? HostName.validate(word)) != nil {
            return UsageError("unknown command '\(shown)'; for a host name, 'reach host \(shown)' or 'reach ping \(shown)'")
        }
        return UsageError("unknown command '\(shown)' (commands: \(known))")
    }

    /// One command's words read by its declaration.
    private static func read<Options>(
        _ words: ArraySlice<String>, _ declaration: CommandLineDeclaration<Options>, _ initial: Options,
        _ invocation: (Options) -> ReachInvocation
    ) throws(UsageError) -> ReachRequest {
        var options = initial
        switch try declaration.parse(words, into: &options) {
        case .run: return .run(invocation(options))
        case .help: return .text(HelpText.command(declaration.summary, extraOptions: builtinOptions))
        case .version: return .text("reach \(version)\n")
        }
    }

    /// `reach help`, `reach help ping`, `reach help help`. A topic that is no command is a
    /// usage error, not the help of what came before it: a typo must not pass for an answer.
    static func helpTopic(_ words: ArraySlice<String>) throws(UsageError) -> String {
        let topics = words.filter { !$0.hasPrefix("-") }
        guard let topic = topics.first else { return programHelp() }
        let summary: CommandSummary
        // A switch, not a search of every declaration: only the one asked about is built.
        switch topic {
        case "status": summary = StatusOptions.commandLine.summary
        case "host": summary = HostOptions.commandLine.summary
        case "addr": summary = AddrOptions.commandLine.summary
        case "watch": summary = WatchOptions.commandLine.summary
        case "ping": summary = PingOptions.commandLine.summary
        case "trace": summary = TraceOptions.commandLine.summary
        case "help":
            summary = CommandSummary(
                about: CommandAbout(path: "reach help", abstract: "Show subcommand help information."),
                operand: OperandName("subcommands", help: ""), options: [])
        default:
            throw UsageError("help: no command '\(PrintableText.escaped(topic))' (commands: \(names.joined(separator: ", ")))")
        }
        if topics.count > 1 {
            throw UsageError("help: no command '\(PrintableText.escaped(topics[topics.startIndex + 1]))' under '\(topic)'")
        }
        let options = topic == "help" ? [builtinOptions[0]] : builtinOptions
        return HelpText.command(summary, extraOptions: options)
    }

    static func programHelp() -> String {
        // The commands' descriptions only: their options are not built for this.
        let listed = [
            HelpText.Entry("status (default)", StatusOptions.about.abstract), HelpText.Entry("host", HostOptions.about.abstract),
            HelpText.Entry("addr", AddrOptions.about.abstract), HelpText.Entry("watch", WatchOptions.about.abstract),
            HelpText.Entry("ping", PingOptions.about.abstract), HelpText.Entry("trace", TraceOptions.about.abstract),
        ]
        let completion = HelpText.Entry(ProgramOption.completionScript + " <shell>", "Print the completion script for bash, zsh or fish.")
        return HelpText.program(about, commands: listed, extraOptions: builtinOptions + [completion])
    }

    /// Every command's names and help, for completions and the man page check.
    static func commands() -> [CommandSummary] {
        [
            StatusOptions.commandLine.summary, HostOptions.commandLine.summary, AddrOptions.commandLine.summary,
            WatchOptions.commandLine.summary, PingOptions.commandLine.summary, TraceOptions.commandLine.summary,
        ]
    }

    static func completionProgram() -> CompletionProgram {
        CompletionProgram(
            name: "reach", commands: commands(),
            programOptions: [ProgramOption.help, ProgramOption.version, ProgramOption.completionScript],
            defaultCommand: "status")
    }
}

/// What a command line asks for: a command to run, or text to print (help, the version,
/// a completion script).
enum ReachRequest {
    case run(ReachInvocation)
    case text(String)
}

/// A command with its options.
enum ReachInvocation: Equatable {
    case status(StatusOptions)
    case host(HostOptions)
    case addr(AddrOptions)
    case watch(WatchOptions)
    case ping(PingOptions)
    case trace(TraceOptions)

    func execute() throws -> ExitStatus {
        switch self {
        case .status(let options): try options.execute()
        case .host(let options): try options.execute()
        case .addr(let options): try options.execute()
        case .watch(let options): try options.execute()
        case .ping(let options): try options.execute()
        case .trace(let options): try options.execute()
        }
    }
}

import ArgumentParser
import ReachCore
import ReachSystem

/// A subcommand that does its work and names its exit status; none of them exits.
protocol ReachRunnable: ParsableCommand {
    func execute() throws -> ExitStatus
}

extension ReachRunnable {
    /// ParsableCommand's entry point, so that ReachMain reaches `execute()` through the
    /// witness table the parsed command already carries. Asking `command as? ReachRunnable`
    /// instead costs a scan of every protocol conformance in the binary: 280 K instructions,
    /// a fifth of what `reach status` may spend above the parser floor (`make bench`).
    func run() throws {
        throw CommandFinished(status: try execute())
    }
}

/// How a ReachRunnable's `run()` hands its exit status back to ReachMain.
struct CommandFinished: Error {
    var status: ExitStatus
}

/// The entry point: parse, run, map the outcome to one exit status. The process ends only
/// here (and in `parseOnly`, the benchmark floor's entry point).
public enum ReachMain {
    public static func run(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        // Before any socket can take a closed stdout's number.
        OutputChannel.reserveStandardDescriptors()
        CurrentProcess.ignoreBrokenPipes()
        var status: ExitStatus
        do {
            try checkHelpTopics(arguments)
            // Plain command lines skip ArgumentParser's start-up (ReachArguments); everything
            // else, and every mistake, goes through it.
            var arguments = arguments
            if arguments.first == "ping" {
                arguments = ["ping"] + PingArguments.splittingFlagGroups(arguments.dropFirst())
            }
            if let invocation = ReachArguments.invocation(arguments) {
                status = try invocation.execute()
            } else {
                status = try dispatch(try ReachCommand.parseAsRoot(arguments))
            }
        } catch {
            let (errorStatus, message) = ExitStatus.of(error)
            if let message {
                OutputChannel.standardError.write("reach: \(message)\n")
            } else {
                OutputChannel.standard.write(ReachCommand.fullMessage(for: error) + "\n")
            }
            status = errorStatus
        }
        OutputChannel.standard.flush()
        if let failure = OutputChannel.standard.failure {
            // `reach status > /dev/full` must not pass a health check it could not report.
            OutputChannel.standardError.write("reach: cannot write to standard output: \(failure)\n")
            status = .systemFailure
        }
        CurrentProcess.exit(status: status.rawValue)
    }

    /// Runs a parsed command. Ours name their exit status; anything else is ArgumentParser's
    /// own (`reach status --help` and `reach help host` parse to its HelpCommand), whose
    /// `run()` throws the request that prints the help of the subcommand asked about.
    static func dispatch(_ command: ParsableCommand) throws -> ExitStatus {
        var command = command
        do {
            try command.run()
        } catch let finished as CommandFinished {
            return finished.status
        }
        return .success
    }

    /// `reach help nonsense` is a usage error. ArgumentParser's help command stops at the
    /// first word it does not know and prints the help it has got so far, exit 0: a typo
    /// would pass for an answer.
    static func checkHelpTopics(_ arguments: [String]) throws {
        guard arguments.first == "help" else { return }
        var commands: [ParsableCommand.Type] = ReachCommand.configuration.subcommands
        for (position, word) in arguments.dropFirst().enumerated() where !word.hasPrefix("-") {
            // `reach help help` is the help command's own help.
            if position == 0 && word == "help" { continue }
            guard let command = commands.first(where: { $0.configuration.commandName == word }) else {
                var known = ""
                for command in commands {
                    guard let name = command.configuration.commandName else { continue }
                    known += known.isEmpty ? name : ", " + name
                }
                let choices = known.isEmpty ? "" : " (commands: \(known))"
                throw UsageError("help: no command '\(PrintableText.escaped(word))'\(choices)")
            }
            commands = command.configuration.subcommands
        }
    }

    /// For the benchmark floor: parse exactly as `run` does, then print a greeting.
    public static func parseOnly(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        let parsed = (try? ReachCommand.parseAsRoot(arguments)) != nil
        OutputChannel.standard.write(parsed ? "hello, world\n" : "hello, usage error\n")
        CurrentProcess.exit(status: 0)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import ReachCore

/// A subcommand that does its work and names its exit status; none of them exits.
protocol ReachRunnable {
    func execute() throws -> ExitStatus
}

/// The entry point: parse, run, map the outcome to one exit status. The only `exit`.
public enum ReachMain {
    public static func run(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        // A reader that goes away must give EPIPE, not a SIGPIPE death.
        signal(SIGPIPE, SIG_IGN)
        let status: ExitStatus
        do {
            status = try dispatch(try ReachCommand.parseAsRoot(arguments))
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
        exit(status.rawValue)
    }

    /// Runs a parsed command. Ours name their exit status; anything else is ArgumentParser's
    /// own (`reach status --help` and `reach help host` parse to its HelpCommand), whose
    /// `run()` throws the request that prints the help of the subcommand asked about.
    static func dispatch(_ command: ParsableCommand) throws -> ExitStatus {
        if let runnable = command as? ReachRunnable { return try runnable.execute() }
        var builtIn = command
        try builtIn.run()
        return .success
    }

    /// For the benchmark floor: parse exactly as `run` does, then print a greeting.
    public static func parseOnly(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        let parsed = (try? ReachCommand.parseAsRoot(arguments)) != nil
        OutputChannel.standard.write(parsed ? "hello, world\n" : "hello, usage error\n")
        exit(0)
    }
}

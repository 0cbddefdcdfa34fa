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
            let command = try ReachCommand.parseAsRoot(arguments)
            if let runnable = command as? ReachRunnable {
                status = try runnable.execute()
            } else {
                // The root with no subcommand prints help (ArgumentParser's convention).
                OutputChannel.standard.write(ReachCommand.helpMessage() + "\n")
                status = .success
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
        exit(status.rawValue)
    }

    /// For the benchmark floor: parse exactly as `run` does, then print a greeting.
    public static func parseOnly(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        let parsed = (try? ReachCommand.parseAsRoot(arguments)) != nil
        OutputChannel.standard.write(parsed ? "hello, world\n" : "hello, usage error\n")
        exit(0)
    }
}

import ReachCommandLine
import ReachCore
import ReachSystem

/// The entry point: parse, run, map the outcome to one exit status. The process ends only
/// here (and in `parseOnly`, the benchmark floor's entry point).
public enum ReachMain {
    public static func run(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        // Before any socket can take a closed stdout's number.
        OutputChannel.reserveStandardDescriptors()
        CurrentProcess.ignoreBrokenPipes()
        var status: ExitStatus
        do {
            switch try ReachCommand.request(arguments) {
            case .run(let invocation): status = try invocation.execute()
            case .text(let text):
                OutputChannel.standard.write(text)
                status = .success
            }
        } catch {
            let (errorStatus, message) = ExitStatus.of(error)
            OutputChannel.standardError.write("reach: \(message)\n")
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

    /// For the benchmark floor: read the command line exactly as `run` does, print what
    /// `run` would print for help, the version or a usage error, and run no command.
    public static func parseOnly(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        do {
            switch try ReachCommand.request(arguments) {
            case .run: OutputChannel.standard.write("hello, world\n")
            case .text(let text): OutputChannel.standard.write(text)
            }
        } catch {
            OutputChannel.standardError.write("reach: \(error.message)\n")
        }
        OutputChannel.standard.flush()
        CurrentProcess.exit(status: 0)
    }
}

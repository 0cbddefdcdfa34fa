/// reach's command line read without ArgumentParser, when it is a plain one.
///
/// Why: ArgumentParser reflects the whole command tree before it parses anything, about
/// 12 M instructions (4 ms) per start, where `ip route get` takes 0.9 M in all; `reach
/// status` in a health check or `reach addr` in a script loop paid it at every run. Each
/// subcommand's options are declared once (`commandLine` on its options), and
/// CommandLineDeclaration's reader takes the plain forms from that declaration alone.
/// Anything else (help, `reach help ...`, completions, `--version`, an unknown or repeated
/// option, a missing value, `--`, options before the subcommand) gives nil and goes to
/// ArgumentParser, which says what is wrong; values are checked by the options'
/// `execute()` either way. ReachArgumentsTests hold the two readers to the same result.
enum ReachArguments {
    /// The command `arguments` (what follows `reach`; ping's flag groups already split)
    /// ask for, nil when ArgumentParser should read them.
    static func invocation(_ arguments: [String]) -> ReachInvocation? {
        // Bare `reach` is `reach status` (ReachCommand's default subcommand).
        guard let first = arguments.first else { return .status(StatusOptions()) }
        let words = arguments.dropFirst()
        // No Dictionary from names to readers: a first Dictionary of a new type costs a scan
        // of the binary's protocol conformances.
        switch first {
        case "status": return StatusOptions.commandLine.read(words, into: StatusOptions()).map(ReachInvocation.status)
        case "host": return HostOptions.commandLine.read(words, into: HostOptions()).map(ReachInvocation.host)
        case "addr": return AddrOptions.commandLine.read(words, into: AddrOptions()).map(ReachInvocation.addr)
        case "watch": return WatchOptions.commandLine.read(words, into: WatchOptions()).map(ReachInvocation.watch)
        case "ping": return PingArguments.options(words).map(ReachInvocation.ping)
        default: return nil
        }
    }
}

/// A subcommand with its options, as either reader gives them.
enum ReachInvocation: Equatable {
    case status(StatusOptions)
    case host(HostOptions)
    case addr(AddrOptions)
    case watch(WatchOptions)
    case ping(PingOptions)

    func execute() throws -> ExitStatus {
        switch self {
        case .status(let options): try options.execute()
        case .host(let options): try options.execute()
        case .addr(let options): try options.execute()
        case .watch(let options): try options.execute()
        case .ping(let options): try options.execute()
        }
    }
}

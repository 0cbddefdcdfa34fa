import ReachCommandLine
import ReachCore
import ReachSystem

/// The checks and steps every ping run makes, one host or many, written once.
extension PingOptions {
    /// How long names may take to resolve: one ping's lookup, or all of a run's together.
    static let resolveTimeout = TimeSpan.seconds(10)

    /// -4 or -6, refusing both.
    func requestedFamily() throws -> AddressFamily? {
        if ipv4 && ipv6 { throw UsageError("-4 and -6 cannot be combined") }
        return ipv4 ? .ipv4 : ipv6 ? .ipv6 : nil
    }

    /// A target that is not an address literal: what is wrong with its zone, or with the
    /// name, said before anything is resolved.
    static func checkName(_ text: String) throws {
        if text.contains("%") { _ = try TargetArgument.address(text) }
        try TargetArgument.validateHostName(text)
    }

    /// Keeps only CAP_NET_RAW (iputils ping_common.c) and refuses what needs it without it:
    /// an interval below iputils' MINUSERINTERVAL, or a flood when `refused` says so.
    static func limitPrivileges(interval: TimeSpan, refused: String, flood: Bool = false) throws {
        try Capabilities.limitToNetRaw()
        if !Capabilities.netRawPermitted && (flood || interval < PingSettings.minimumUserInterval) {
            throw PermissionError(refused + ": CAP_NET_RAW is not permitted (setcap cap_net_raw+p on the reach binary, or run as root)")
        }
    }

    /// A failure of the system in the middle of a run: one line, exit 71.
    static func systemFailure(_ error: any Error) -> ExitStatus {
        OutputChannel.standardError.write("reach: system failure: \(error)\n")
        return .systemFailure
    }
}

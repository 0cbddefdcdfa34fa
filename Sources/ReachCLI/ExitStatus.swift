import ReachCommandLine
import ReachCore
import ReachSystem

/// The exit status of every subcommand, decided here and nowhere else.
public struct ExitStatus: RawRepresentable, Equatable, Sendable {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Reachable; ping: replies received.
    public static let success = ExitStatus(rawValue: 0)
    /// Not reachable: no route, reject route, link down, cellular refused, no reply, timed out.
    public static let notReachable = ExitStatus(rawValue: 1)
    /// The name could not be resolved (not found, or no answer within the timeout).
    public static let nameNotResolved = ExitStatus(rawValue: 2)
    /// Usage error or bad input (sysexits EX_USAGE).
    public static let usage = ExitStatus(rawValue: 64)
    /// An unexpected system failure (sysexits EX_OSERR).
    public static let systemFailure = ExitStatus(rawValue: 71)
    /// Not permitted (sysexits EX_NOPERM).
    public static let notPermitted = ExitStatus(rawValue: 77)

    /// The verdict of a reachability evaluation.
    static func of(_ report: ReachabilityReport) -> ExitStatus {
        if report.resolutionFailure != nil { return .nameNotResolved }
        // With probes, only full connectivity is success: limited, portal and none are not.
        if let connectivity = report.connectivity { return connectivity.state == .full ? .success : .notReachable }
        return report.isReachable ? .success : .notReachable
    }

    /// The verdict over several targets: 0 when all are reachable (with `any`, when one is),
    /// else 2 when a name did not resolve, else 1.
    static func of(_ reports: [ReachabilityReport], any: Bool) -> ExitStatus {
        combining(reports.map { ExitStatus.of($0) }, any: any)
    }

    /// The same from the targets' own statuses (each once is enough).
    static func combining(_ statuses: [ExitStatus], any: Bool) -> ExitStatus {
        let succeeded = any ? statuses.contains(.success) : statuses.allSatisfy { $0 == .success }
        if succeeded { return .success }
        return statuses.contains(.nameNotResolved) ? .nameNotResolved : .notReachable
    }

    /// How `watch` ended: 1 only when `--until` was still waiting (timeout, signal),
    /// as nm-online and systemd-networkd-wait-online do.
    static func of(_ end: WatchEnd, waitingUntil: Bool) -> ExitStatus {
        switch end {
        case .conditionMet, .countReached, .readerGone: return .success
        case .timedOut, .interrupted: return waitingUntil ? .notReachable : .success
        }
    }

    /// The status for an error that ended a command, and the one line that says why.
    static func of(_ error: Error) -> (status: ExitStatus, message: String) {
        switch error {
        case let error as UsageError:
            return (.usage, error.message)
        case let mismatch as FamilyMismatch:
            return (.usage, mismatch.description)
        case let fault as TargetText.Fault:
            return (.usage, TargetArgument.message(fault))
        case let refusal as PingSession.Refusal:
            return (refusal.kind == .badInput ? .usage : .notPermitted, refusal.description)
        case let error as PermissionError:
            return (.notPermitted, error.message)
        case let denied as ICMPPermissionDenied:
            // An ICMP probe without ICMP permission: the same words as `reach ping`.
            return (.notPermitted, denied.withRemedy)
        case let error as SystemCallError:
            return (.systemFailure, "system failure: \(error)")
        case let error as NetlinkRequestError:
            return (.systemFailure, "system failure: \(error)")
        case let error as ParseError:
            return (.systemFailure, "system failure: kernel reply: \(error)")
        default:
            // An error no case above names is ours, not the user's.
            return (.systemFailure, "system failure: \(error)")
        }
    }
}

/// An operation the process may not do (no ICMP permission).
public struct PermissionError: Error {
    public var message: String
    public init(_ message: String) { self.message = message }
}

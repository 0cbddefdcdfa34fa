import ReachCommandLine
import ReachCore
import ReachSystem

/// A target as the command line gives it: an address literal (IPv6 with a zone) or a host
/// name, checked by `TargetText` and each fault worded here (also for the faults ReachCore's
/// `PingSession` throws), as a usage error, which a target list names with its line.
enum TargetArgument {
    static func address(_ text: String) throws -> IPAddress {
        do {
            return try TargetText.address(text)
        } catch {
            throw UsageError(message(error))
        }
    }

    static func validateHostName(_ name: String) throws {
        do {
            try TargetText.validateHostName(name)
        } catch {
            throw UsageError(message(error))
        }
    }

    /// The one line for a target's fault, the user's text escaped.
    static func message(_ fault: TargetText.Fault) -> String {
        switch fault {
        case .invalidAddress(let text):
            "invalid IP address '\(PrintableText.escaped(text))'"
        case .unknownZone(let zone, let text):
            "unknown interface '\(PrintableText.escaped(zone))' in '\(PrintableText.escaped(text))'"
        case .zoneOnIPv4(let text):
            "a zone (%interface) is for IPv6 addresses only: '\(PrintableText.escaped(text))'"
        case .invalidHostName(let name, let reason):
            "invalid host name '\(PrintableText.escaped(name))': \(reason)"
        }
    }
}

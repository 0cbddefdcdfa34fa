import ReachCommandLine
import ReachCore
import ReachSystem

/// A target as the command line gives it: an address literal (IPv6 with a zone) or a host
/// name, each refused with the one-line error it deserves.
enum TargetArgument {
    static func address(_ text: String) throws -> IPAddress {
        do {
            return try IPAddress.parse(text).resolvingZone()
        } catch .notAnAddress {
            throw UsageError("invalid IP address '\(PrintableText.escaped(text))'")
        } catch .unknownZone(let zone) {
            throw UsageError("unknown interface '\(PrintableText.escaped(zone))' in '\(PrintableText.escaped(text))'")
        } catch .zoneOnIPv4 {
            throw UsageError("a zone (%interface) is for IPv6 addresses only: '\(PrintableText.escaped(text))'")
        }
    }

    static func validateHostName(_ name: String) throws {
        do {
            try HostName.validate(name)
        } catch {
            throw UsageError("invalid host name '\(PrintableText.escaped(name))': \(error)")
        }
    }
}

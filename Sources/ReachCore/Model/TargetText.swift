import ReachSystem

/// A target as a command line gives it, an address literal (IPv6 with a zone) or a host
/// name, checked before anything is resolved or sent. What is wrong is a `Fault` holding
/// the user's text as given; the command line words it (escaping that text).
public enum TargetText {
    public enum Fault: Error, Equatable, Sendable {
        case invalidAddress(String)
        /// The zone's interface does not exist: the zone, then the whole target.
        case unknownZone(String, in: String)
        case zoneOnIPv4(String)
        /// The name, and what HostName found wrong with it.
        case invalidHostName(String, reason: String)
    }

    /// The address a literal stands for, its zone's interface looked up.
    public static func address(_ text: String) throws(Fault) -> IPAddress {
        do {
            return try IPAddress.parse(text).resolvingZone()
        } catch {
            switch error {
            case .notAnAddress: throw .invalidAddress(text)
            case .unknownZone(let zone): throw .unknownZone(zone, in: text)
            case .zoneOnIPv4: throw .zoneOnIPv4(text)
            }
        }
    }

    /// A host name as the resolver may be asked it (HostName's rules).
    public static func validateHostName(_ name: String) throws(Fault) {
        do {
            try HostName.validate(name)
        } catch {
            throw .invalidHostName(name, reason: "\(error)")
        }
    }

    /// A target that is not an address literal: what is wrong with its zone, or with the
    /// name.
    public static func checkName(_ text: String) throws(Fault) {
        if text.contains("%") { _ = try address(text) }
        try validateHostName(text)
    }
}

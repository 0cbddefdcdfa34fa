// ModemManager's numbers, as its public header include/ModemManager-enums.h defines them
// (docs/CELLULAR.md has the table). Kept as numbers: a value from a newer ModemManager
// survives and prints as a number.

/// MMModemAccessTechnology: one bit per radio access technology.
public struct AccessTechnologies: OptionSet, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    static let pots = AccessTechnologies(rawValue: 1 << 0)
    static let gsm = AccessTechnologies(rawValue: 1 << 1)
    static let gsmCompact = AccessTechnologies(rawValue: 1 << 2)
    static let gprs = AccessTechnologies(rawValue: 1 << 3)
    static let edge = AccessTechnologies(rawValue: 1 << 4)
    static let umts = AccessTechnologies(rawValue: 1 << 5)
    static let hsdpa = AccessTechnologies(rawValue: 1 << 6)
    static let hsupa = AccessTechnologies(rawValue: 1 << 7)
    static let hspa = AccessTechnologies(rawValue: 1 << 8)
    static let hspaPlus = AccessTechnologies(rawValue: 1 << 9)
    static let oneXRTT = AccessTechnologies(rawValue: 1 << 10)
    static let evdo0 = AccessTechnologies(rawValue: 1 << 11)
    static let evdoA = AccessTechnologies(rawValue: 1 << 12)
    static let evdoB = AccessTechnologies(rawValue: 1 << 13)
    static let lte = AccessTechnologies(rawValue: 1 << 14)
    static let fiveGNR = AccessTechnologies(rawValue: 1 << 15)
    static let lteCatM = AccessTechnologies(rawValue: 1 << 16)
    static let lteNBIoT = AccessTechnologies(rawValue: 1 << 17)

    /// Every known bit: ModemManager's nick (what mmcli prints and the JSON uses), the
    /// name text output uses, and its generation (docs/CELLULAR.md says where each
    /// grouping comes from). POTS is a telephone line: no generation.
    static let known: [(technology: AccessTechnologies, nick: String, name: String, generation: CellularGeneration?)] = [
        (.pots, "pots", "POTS", nil),
        (.gsm, "gsm", "GSM", .g2),
        (.gsmCompact, "gsm-compact", "GSM Compact", .g2),
        (.gprs, "gprs", "GPRS", .g2),
        (.edge, "edge", "EDGE", .g2),
        (.umts, "umts", "UMTS", .g3),
        (.hsdpa, "hsdpa", "HSDPA", .g3),
        (.hsupa, "hsupa", "HSUPA", .g3),
        (.hspa, "hspa", "HSPA", .g3),
        (.hspaPlus, "hspa-plus", "HSPA+", .g3),
        (.oneXRTT, "1xrtt", "1xRTT", .g3),
        (.evdo0, "evdo0", "EV-DO 0", .g3),
        (.evdoA, "evdoa", "EV-DO A", .g3),
        (.evdoB, "evdob", "EV-DO B", .g3),
        (.lte, "lte", "LTE", .g4),
        (.fiveGNR, "5gnr", "NR", .g5),
        (.lteCatM, "lte-cat-m", "LTE Cat-M", .g4),
        (.lteNBIoT, "lte-nb-iot", "NB-IoT", .g4),
    ]

    /// The highest generation among the bits, not the generation of the highest bit:
    /// LTE Cat-M (bit 16) is 4G, below 5G NR (bit 15); LTE|5GNR (5G non-standalone) is 5G.
    public var generation: CellularGeneration? {
        Self.known.filter { contains($0.technology) }.compactMap(\.generation).max()
    }

    /// The known bits set, in bit order, as (nick, name); an unknown bit as its number.
    public var members: [(nick: String, name: String)] {
        var members = Self.known.filter { contains($0.technology) }.map { ($0.nick, $0.name) }
        let knownBits = Self.known.reduce(UInt32(0)) { $0 | $1.technology.rawValue }
        var unknown = rawValue & ~knownBits
        while unknown != 0 {
            let bit = unknown & (~unknown &+ 1)
            members.append(("\(bit)", "\(bit)"))
            unknown &= ~bit
        }
        return members
    }
}

/// A cellular generation, as people say it.
public enum CellularGeneration: Int, Comparable, Hashable, Sendable, CaseIterable {
    case g2 = 2
    case g3 = 3
    case g4 = 4
    case g5 = 5

    /// The JSON form: "2g" ... "5g".
    public var name: String { "\(rawValue)g" }
    /// The text form: "2G" ... "5G".
    public var label: String { "\(rawValue)G" }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// MMModemState: the modem's state, from failed (-1) to connected (11).
public struct ModemState: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    static let failed = ModemState(rawValue: -1)
    static let unknown = ModemState(rawValue: 0)
    static let initializing = ModemState(rawValue: 1)
    static let locked = ModemState(rawValue: 2)
    static let disabled = ModemState(rawValue: 3)
    static let disabling = ModemState(rawValue: 4)
    static let enabling = ModemState(rawValue: 5)
    static let enabled = ModemState(rawValue: 6)
    static let searching = ModemState(rawValue: 7)
    static let registered = ModemState(rawValue: 8)
    static let disconnecting = ModemState(rawValue: 9)
    static let connecting = ModemState(rawValue: 10)
    static let connected = ModemState(rawValue: 11)

    /// ModemManager's nick ("connected"), the JSON form; a newer value as its number.
    public var name: String {
        switch rawValue {
        case -1: "failed"
        case 0: "unknown"
        case 1: "initializing"
        case 2: "locked"
        case 3: "disabled"
        case 4: "disabling"
        case 5: "enabling"
        case 6: "enabled"
        case 7: "searching"
        case 8: "registered"
        case 9: "disconnecting"
        case 10: "connecting"
        case 11: "connected"
        default: "\(rawValue)"
        }
    }
}

/// MMModem3gppRegistrationState: where the modem is registered (3GPP TS 27.007 +CREG).
public struct RegistrationState: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    static let idle = RegistrationState(rawValue: 0)
    static let home = RegistrationState(rawValue: 1)
    static let searching = RegistrationState(rawValue: 2)
    static let denied = RegistrationState(rawValue: 3)
    static let unknown = RegistrationState(rawValue: 4)
    static let roaming = RegistrationState(rawValue: 5)
    static let homeSMSOnly = RegistrationState(rawValue: 6)
    static let roamingSMSOnly = RegistrationState(rawValue: 7)
    static let emergencyOnly = RegistrationState(rawValue: 8)
    static let homeCSFBNotPreferred = RegistrationState(rawValue: 9)
    static let roamingCSFBNotPreferred = RegistrationState(rawValue: 10)
    static let attachedRLOS = RegistrationState(rawValue: 11)

    /// Registered on a visited network (true), on the home network (false), or not
    /// registered on any, so neither can be said (nil).
    public var isRoaming: Bool? {
        switch self {
        case .roaming, .roamingSMSOnly, .roamingCSFBNotPreferred: true
        case .home, .homeSMSOnly, .homeCSFBNotPreferred: false
        default: nil
        }
    }
}

/// MMModemPortType's NET (2): the port that is the modem's network interface.
enum ModemPortType {
    static let net: UInt32 = 2
}

/// NMMetered (NetworkManager's libnm-core-public/nm-dbus-interface.h): whether a device's
/// connection is metered, and whether that was said or guessed.
public struct Metered: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    static let unknown = Metered(rawValue: 0)
    static let yes = Metered(rawValue: 1)
    static let no = Metered(rawValue: 2)
    static let guessYes = Metered(rawValue: 3)
    static let guessNo = Metered(rawValue: 4)

    /// YES or GUESS_YES: the path costs money by the byte.
    public var isMetered: Bool { self == .yes || self == .guessYes }
}

/// What a path's cellular link reports: ModemManager's facts about the modem that claims
/// the link, each nil when ModemManager does not give it (all nil for a link that is
/// cellular by kernel facts alone).
///
/// A class, immutable: in a `LinkReport` it is one pointer. As a struct of six optionals it
/// made every copy of a report instantiate their generic metadata by mangled name on
/// first use, a start-up cost for every command (callgrind shows it).
public final class CellularFacts: Hashable, Sendable {
    public let technologies: AccessTechnologies?
    public let operatorName: String?
    public let operatorCode: String?
    public let registration: RegistrationState?
    public let signalPercent: UInt32?
    public let modemState: ModemState?

    public init(technologies: AccessTechnologies? = nil, operatorName: String? = nil, operatorCode: String? = nil,
                registration: RegistrationState? = nil, signalPercent: UInt32? = nil, modemState: ModemState? = nil) {
        self.technologies = technologies
        self.operatorName = operatorName
        self.operatorCode = operatorCode
        self.registration = registration
        self.signalPercent = signalPercent
        self.modemState = modemState
    }

    public var generation: CellularGeneration? { technologies?.generation }
    public var roaming: Bool? { registration?.isRoaming }

    /// A copy with some facts replaced.
    func with(technologies: AccessTechnologies?? = nil, operatorName: String?? = nil, registration: RegistrationState?? = nil,
                     signalPercent: UInt32?? = nil, modemState: ModemState?? = nil) -> CellularFacts {
        CellularFacts(technologies: technologies ?? self.technologies, operatorName: operatorName ?? self.operatorName,
                      operatorCode: operatorCode, registration: registration ?? self.registration,
                      signalPercent: signalPercent ?? self.signalPercent, modemState: modemState ?? self.modemState)
    }

    public static func == (lhs: CellularFacts, rhs: CellularFacts) -> Bool {
        lhs.technologies == rhs.technologies && lhs.operatorName == rhs.operatorName && lhs.operatorCode == rhs.operatorCode
            && lhs.registration == rhs.registration && lhs.signalPercent == rhs.signalPercent && lhs.modemState == rhs.modemState
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(technologies)
        hasher.combine(operatorName)
        hasher.combine(operatorCode)
        hasher.combine(registration)
        hasher.combine(signalPercent)
        hasher.combine(modemState)
    }

}

/// One modem in ModemManager's object tree: its network interfaces (ports of type NET)
/// and its facts.
struct ModemFacts: Hashable, Sendable {
    var path: String
    var netInterfaces: [String]
    var facts: CellularFacts

    static let modemInterface = "org.freedesktop.ModemManager1.Modem"
    static let threeGPPInterface = "org.freedesktop.ModemManager1.Modem.Modem3gpp"

    /// The modems in a GetManagedObjects answer (`a{oa{sa{sv}}}`: object, interface,
    /// property). Objects without the Modem interface (SIMs, bearers) are skipped, and so
    /// is a property of an unexpected type: it is then unknown.
    static func modems(inManagedObjects body: [DBusValue]) -> [ModemFacts] {
        guard let objects = body.first?.entries else { return [] }
        var modems: [ModemFacts] = []
        for (path, interfaces) in objects {
            guard let path = path.string, let modem = interfaces[modemInterface] else { continue }
            let threeGPP = interfaces[threeGPPInterface]
            var ports: [String] = []
            for port in modem["Ports"]?.elements ?? [] {
                guard let fields = port.elements, fields.count == 2, let name = fields[0].string,
                      fields[1].uint32 == ModemPortType.net else { continue }
                ports.append(name)
            }
            let signal = modem["SignalQuality"]?.elements
            let facts = CellularFacts(
                technologies: modem["AccessTechnologies"]?.uint32.map(AccessTechnologies.init(rawValue:)),
                operatorName: nonEmpty(threeGPP?["OperatorName"]?.string),
                operatorCode: nonEmpty(threeGPP?["OperatorCode"]?.string),
                registration: threeGPP?["RegistrationState"]?.uint32.map(RegistrationState.init(rawValue:)),
                signalPercent: signal?.first?.uint32.map { min($0, 100) },
                modemState: modem["State"]?.int32.map(ModemState.init(rawValue:)))
            modems.append(ModemFacts(path: path, netInterfaces: ports, facts: facts))
        }
        return modems
    }

    /// ModemManager says "" for an operator it does not know (not registered).
    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}

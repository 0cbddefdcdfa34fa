/// What a path's cellular link reports: ModemManager's facts about the modem that claims
/// the link, each nil when ModemManager does not give it (all nil for a link that is
/// cellular by kernel facts alone).
public struct CellularFacts: Hashable, Sendable {
    public var technologies: AccessTechnologies?
    public var operatorName: String?
    public var operatorCode: String?
    public var registration: RegistrationState?
    public var signalPercent: UInt32?
    public var modemState: ModemState?

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
}

/// One modem in ModemManager's object tree: its network interfaces (ports of type NET)
/// and its facts.
public struct ModemFacts: Hashable, Sendable {
    public var path: String
    public var netInterfaces: [String]
    public var facts: CellularFacts

    public init(path: String, netInterfaces: [String], facts: CellularFacts) {
        self.path = path
        self.netInterfaces = netInterfaces
        self.facts = facts
    }

    static let modemInterface = "org.freedesktop.ModemManager1.Modem"
    static let threeGPPInterface = "org.freedesktop.ModemManager1.Modem.Modem3gpp"

    /// The modems in a GetManagedObjects answer (`a{oa{sa{sv}}}`: object, interface,
    /// property). Objects without the Modem interface (SIMs, bearers) are skipped, and so
    /// is a property of an unexpected type: it is then unknown.
    public static func modems(inManagedObjects body: [DBusValue]) -> [ModemFacts] {
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

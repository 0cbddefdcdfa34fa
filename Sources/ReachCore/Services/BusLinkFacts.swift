import ReachSystem

/// ModemManager's and NetworkManager's facts about links, asked over the system bus.
///
/// - No bus socket: nothing is done at all (the connect finds no file).
/// - The first question logs in, says Hello and asks both services without waiting in
///   between; a bus without them answers with errors in that one round trip. Every call carries
///   NO_AUTO_START: reach never starts a service.
/// - A bus or service that does not answer: after `patience` the facts are unknown and
///   nothing more is waited for until the facts are asked afresh (watch, after a signal).
/// - Answers are kept until a signal says they changed (`handleSignals`).
public final class BusLinkFacts: LinkFactsSource, ServiceSignalSource {
    static let patience = TimeSpan(milliseconds: 250)

    static let modemManager = "org.freedesktop.ModemManager1"
    static let modemManagerPath = "/org/freedesktop/ModemManager1"
    static let networkManager = "org.freedesktop.NetworkManager"
    static let networkManagerPath = "/org/freedesktop/NetworkManager"
    static let deviceInterface = "org.freedesktop.NetworkManager.Device"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// What a watch subscribes to (the D-Bus Specification, "Match Rules"): the services
    /// coming and going, ModemManager's objects and their properties, NetworkManager's
    /// devices' properties.
    static let matchRules = [
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(modemManager)'",
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(networkManager)'",
        "type='signal',sender='\(modemManager)',interface='org.freedesktop.DBus.ObjectManager',path='\(modemManagerPath)'",
        "type='signal',sender='\(modemManager)',interface='\(propertiesInterface)',member='PropertiesChanged',"
            + "path_namespace='\(modemManagerPath)'",
        "type='signal',sender='\(networkManager)',interface='\(propertiesInterface)',member='PropertiesChanged',"
            + "path_namespace='\(networkManagerPath)/Devices'",
    ]
    static let relevantMembers = ["NameOwnerChanged", "InterfacesAdded", "InterfacesRemoved", "PropertiesChanged"]

    private let address: () -> DBusAddress?
    private let connector: (DBusAddress) -> DBusTransport?
    private let userID: () -> UInt32
    private let clock: () -> MonotonicInstant
    private let patience: TimeSpan

    private var connection: DBusConnection?
    /// Connecting was tried (and failed, when `connection` is nil): status does not try again.
    private var attempted = false
    private var subscribed = false
    /// The end of this round's patience; nil before its first question.
    private var deadline: MonotonicInstant?
    private var gaveUp = false
    /// nil: not asked in this round.
    private var modems: [ModemFacts]?
    /// An array, not a dictionary: a link or two, and no new Dictionary type at start-up.
    private var metered: [(link: String, value: Metered?)] = []

    init(address: @escaping () -> DBusAddress?, userID: @escaping () -> UInt32, clock: @escaping () -> MonotonicInstant,
                patience: TimeSpan = BusLinkFacts.patience, connector: @escaping (DBusAddress) -> DBusTransport?) {
        self.address = address
        self.userID = userID
        self.clock = clock
        self.patience = patience
        self.connector = connector
    }

    /// The system bus of this process: `DBUS_SYSTEM_BUS_ADDRESS` or the default socket,
    /// looked up only when a question is first asked.
    public static func systemBus() -> BusLinkFacts {
        BusLinkFacts(
            address: { DBusAddress.systemBus(environment: CurrentProcess.environment("DBUS_SYSTEM_BUS_ADDRESS")) },
            userID: { UnixStreamSocket.userID }, clock: MonotonicInstant.now,
            connector: { UnixStreamSocket.connect(path: $0.path, isAbstract: $0.isAbstract) })
    }

    public func facts(forLink name: String) -> LinkServiceFacts {
        // No bus: nothing more is done, and nothing is kept.
        guard connect() else { return LinkServiceFacts() }
        if !gaveUp, modems == nil || !metered.contains(where: { $0.link == name }) { ask(link: name) }
        return LinkServiceFacts(modem: modems?.first { $0.netInterfaces.contains(name) }?.facts,
                                metered: metered.first { $0.link == name }?.value ?? nil)
    }

    /// Connects and subscribes to the signals that can change the facts (watch).
    public func subscribe() {
        subscribed = true
        _ = connect()  // no bus: the facts stay unknown, and the next question tries again
        deadline = nil  // the patience is for the first question's answers, whenever it comes
    }

    public var signalDescriptor: FileDescriptor.Number? { connection?.transport.fileDescriptor }

    public var hasPendingSignals: Bool { !(connection?.signals.isEmpty ?? true) }

    public func handleSignals() -> Bool {
        guard let connection else { return false }
        let signals: [DBusMessage]
        do {
            signals = try connection.takeSignals()
        } catch {
            // The bus went away: the facts are unknown until it comes back.
            self.connection = nil
            startRound()
            return true
        }
        guard signals.contains(where: { Self.relevantMembers.contains($0.member ?? "") }) else { return false }
        startRound()
        return true
    }

    /// Forgets the answers: the next question asks again, with fresh patience.
    private func startRound() {
        modems = nil
        metered = []
        deadline = nil
        gaveUp = false
    }

    private func ask(link name: String) {
        var calls: [DBusMessage] = []
        let askModems = modems == nil
        if askModems {
            calls.append(.call(destination: Self.modemManager, path: Self.modemManagerPath,
                               interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects"))
        }
        calls.append(.call(destination: Self.networkManager, path: Self.networkManagerPath, interface: Self.networkManager,
                           member: "GetDeviceByIpIface", body: [.string(name)]))
        guard let serials = send(calls), let answers = wait(for: serials) else {
            return record(link: name, metered: nil, modems: askModems ? [] : nil)
        }
        if askModems {
            // An error (NameHasNoOwner: no ModemManager) or no answer: no modem claims anything.
            if let answer = answers[serials[0]], answer.kind == .methodReturn {
                modems = ModemFacts.modems(inManagedObjects: answer.body)
            } else {
                modems = []
            }
        }
        guard let device = answers[serials[serials.count - 1]], device.kind == .methodReturn, let path = device.body.first?.string,
              let connection, let more = try? connection.send([
                  .call(destination: Self.networkManager, path: path, interface: Self.propertiesInterface, member: "Get",
                        body: [.string(Self.deviceInterface), .string("Metered")]),
              ], timeout: remaining()), let reply = wait(for: more)?[more[0]], reply.kind == .methodReturn
        else { return record(link: name, metered: nil, modems: nil) }
        record(link: name, metered: reply.body.first?.uint32.map(Metered.init(rawValue:)), modems: nil)
    }

    private func record(link: String, metered value: Metered?, modems found: [ModemFacts]?) {
        if let found { modems = found }
        metered.append((link, value))
    }

    private func remaining() -> TimeSpan {
        let now = clock()
        if deadline == nil { deadline = now + patience }
        return deadline!.remaining(from: now)
    }

    /// Whether there is a connection: made, logged in and subscribed (the login, Hello and
    /// AddMatch are written without waiting for their answers) when it was not yet tried.
    private func connect() -> Bool {
        if connection != nil { return true }
        // status tries once; a watch tries at each evaluation, so a bus that starts (or comes
        // back) later is found at the next kernel change.
        guard !attempted || subscribed else { return false }
        attempted = true
        guard let address = address(), let transport = connector(address) else { return false }
        if subscribed { startRound() }  // a new connection: nothing known yet, fresh patience
        let made = DBusConnection(transport: transport, clock: clock)
        let matches = subscribed ? Self.matchRules.map { rule in
            DBusMessage.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                             member: "AddMatch", body: [.string(rule)], flags: .noReplyExpected)
        } : []
        // A bus that refuses us is no bus: the facts stay unknown, and the next question tries again.
        guard (try? made.start(userID: userID(), calls: matches, timeout: remaining())) != nil else { return false }
        connection = made
        return true
    }

    /// Sends `calls`: their serials; nil when the connection failed.
    private func send(_ calls: [DBusMessage]) -> [UInt32]? {
        guard let connection else { return nil }
        do {
            return try connection.send(calls, timeout: remaining())
        } catch {
            dropConnection()
            return nil
        }
    }

    /// The bus failed (closed, refused, sent garbage): nothing more this round.
    private func dropConnection() {
        connection = nil
        gaveUp = true
    }

    /// The answers that came within this round's patience; nil when the bus failed.
    /// Missing answers mean a silent service: give up for this round.
    private func wait(for serials: [UInt32]) -> [UInt32: DBusMessage]? {
        guard let connection else { return nil }
        _ = remaining()  // sets the round's deadline when none is set yet
        do {
            let answers = try connection.replies(to: serials, deadline: deadline!)
            if answers.count < serials.count { gaveUp = true }
            return answers
        } catch {
            dropConnection()
            return nil
        }
    }
}

extension UnixStreamSocket: DBusTransport {
}

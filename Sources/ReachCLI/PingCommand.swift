import ReachCommandLine
import ReachCore
import ReachSystem

/// `reach ping`'s command line as plain values: the typed options' as their declarations
/// read them, -c and -I as text (PingSettings checks them); the run's checks and steps are a
/// `PingSession`'s, its lines the renderers'.
struct PingOptions: Equatable {
    var hosts: [String] = []
    var count: String?
    var interval: TimeSpan?
    var timeout: TimeSpan?
    /// -w: 0, none.
    var deadline: TimeSpan?
    var size: Int?
    var ttl: Int?
    var interface: String?
    var pattern: [UInt8]?
    var mtuDiscovery: PathMTUDiscovery?
    var ipv4 = false
    var ipv6 = false
    var quiet = false
    var numeric = false
    var timestamps = false
    var outstanding = false
    var flood = false
    /// -b: SO_BROADCAST, as iputils sets it.
    var broadcast = false
    var json = false
    var period: TimeSpan?
    var alive = false
    var unreachable = false
    var eachRTT = false
    /// Every --targets-from, in the order given.
    var targetsFrom: [String] = []
    var generate: String?
    var elapsed = false
    var stats = false
    var loop = false
    var squiet: TimeSpan?
    /// --percentiles: the round trips' p50/p90/p99 after the statistics.
    var percentiles = false

    /// Options only fping's model has. A target list (`--targets-from`, `--generate`) is
    /// one of them even when it holds a single target: a script that gives a list expects
    /// fping's lines and its ending, not an iputils ping that runs until interrupted.
    var asksForFanout: Bool {
        period != nil || alive || unreachable || eachRTT || !targetsFrom.isEmpty || generate != nil || elapsed || stats || loop
            || squiet != nil
    }

    /// One target keeps iputils ping's behaviour exactly; several (or an fping option) run
    /// fping's model.
    func execute() throws -> ExitStatus {
        var operands = hosts
        var range: (start: String, end: String)?
        if let generate, !generate.contains("/") {
            // fping -g START END: the operand after the start is the range's end.
            guard operands.count == 1 else {
                throw UsageError(
                    "\(Option.generate.spelled): '\(PrintableText.escaped(generate))' is not an address prefix such as 198.51.100.0/24, "
                        + "nor a START followed by one END address")
            }
            range = (generate, operands.removeFirst())
        }
        var targets = try TargetList.collect(operands, from: targetsFrom, allowingNone: generate != nil)
        if let range {
            targets += try TargetList.generate(from: range.start, to: range.end, after: targets.count)
        } else if let generate {
            targets += try TargetList.generate(generate, after: targets.count)
        }
        if targets.count == 1 && !asksForFanout { return try executeOne(host: targets[0]) }
        return try executeFanout(targets)
    }

    private func executeOne(host: String) throws -> ExitStatus {
        let settings = try PingSettings(self)
        let session = PingSession(ipv4: ipv4, ipv6: ipv6, flood: flood, options: Self.sessionOptions)
        try session.limitPrivileges(interval: settings.configuration.interval, rules: .iputils)
        let address: IPAddress
        switch try session.resolve(host) {
        case .address(let resolved):
            address = resolved
        case .unresolved(let why):
            // With --json, the event several targets give for it, on stdout.
            if json {
                OutputChannel.standard.write(PingRenderer.unresolved(host, why: why).serialized() + "\n")
            } else {
                OutputChannel.standardError.write("reach: \(PrintableText.escaped(host)): \(why)\n")
            }
            return .nameNotResolved
        }
        try settings.check(for: address.family)
        try checkBroadcast(address)
        let socket = try settings.opening { try ICMPSocket(family: address.family, options: settings.socketOptions) }
        try Capabilities.dropAll()
        return run(host: host, address: address, socket: socket, settings: settings, session: session)
    }

    private func run(host: String, address: IPAddress, socket: ICMPSocket, settings: PingSettings, session: PingSession) -> ExitStatus {
        let renderer = PingRenderer(
            targetText: host, address: address, payloadSize: settings.configuration.payloadSize,
            quiet: quiet, flood: flood, showsTimestamps: timestamps, reportsOutstanding: outstanding,
            json: json, broadcast: broadcast, percentiles: percentiles)
        let out = OutputChannel.standard
        let clock = SystemClock()
        writeHeader(renderer, address: address, socket: socket, settings: settings)
        InterruptSignal.install(writingTo: socket.interruptionDescriptor)
        var loop = PingLoop(
            engine: PingEngine(target: address, identifier: socket.identifier, configuration: settings.configuration),
            transport: socket, clock: clock)
        let failure = session.run(&loop) { event, _ in
            // `reach ping HOST | head -2`: once the reader is gone, end as on Ctrl-C
            // rather than ping on forever into a closed pipe. Asked only after a write
            // (the class property is an exclusivity check per read: per event, in -f -q).
            if Self.write(event, renderer: renderer, to: out, clock: clock) && out.readerGone { socket.interrupt() }
        }
        if let failure { return Self.stopped(by: failure) }
        let status: ExitStatus = loop.engine.succeeded ? .success : .notReachable
        if json {
            out.write(renderer.summary(loop.engine, status: status).serialized() + "\n")
        } else {
            out.write(renderer.statistics(loop.engine, intervalIsZero: settings.configuration.interval == .zero))
        }
        return status
    }

    /// iputils ping4_run: a broadcast address without -b is refused before anything is sent
    /// (where iputils, which cannot tell a broadcast from a prohibit route, adds "If not,
    /// check your local firewall rules"); with -b, its warning on stderr.
    private func checkBroadcast(_ address: IPAddress) throws {
        guard address.family == .ipv4, AccessRefusal(toward: address, interface: interface) == .broadcast else { return }
        guard broadcast else { throw UsageError("\(address) is a broadcast address: ping it with \(Option.broadcast.spelled)") }
        OutputChannel.standardError.write("WARNING: pinging broadcast address\n")
    }

    /// A run the system stopped in the middle (the session's one line): exit 71.
    static func stopped(by failure: String) -> ExitStatus {
        OutputChannel.standardError.write("reach: \(failure)\n")
        return .systemFailure
    }

    /// The JSON start event, or iputils' PATTERN and PING lines.
    private func writeHeader(_ renderer: PingRenderer, address: IPAddress, socket: ICMPSocket, settings: PingSettings) {
        let out = OutputChannel.standard
        if json {
            let start = PingEvent.started(PingStart(address: address, identifier: socket.identifier, socketKind: socket.kind))
            if let object = renderer.json(start) { out.write(object.serialized() + "\n") }
            return
        }
        // iputils: "from SOURCE INTERFACE:" with -I NAME, "from SOURCE :" with -I ADDRESS.
        let source = interface.flatMap { name -> (IPAddress, String)? in
            if let given = settings.socketOptions.sourceAddress { return (given, "") }
            return ICMPSocketOptions.sourceAddress(toward: address, interface: name).map { ($0, name) }
        }
        // iputils -p: the pattern, before the PING line, unless -q (ping_common.c fill).
        let pattern = settings.configuration.payloadPattern
        if !pattern.isEmpty && !quiet { out.write("PATTERN: 0x" + pattern.map(PingSettings.hexByte).joined() + "\n") }
        out.write(renderer.header(source: source.map { (address: $0.0, interface: $0.1) }))
    }

    /// One event's lines: JSON or iputils' text on stdout, diagnostics on stderr. Whether
    /// anything went to stdout.
    private static func write(_ event: PingEvent, renderer: PingRenderer, to out: OutputChannel, clock: SystemClock) -> Bool {
        // The renderer's fields: read once per event, per echo in a flood.
        if renderer.json {
            if let object = renderer.json(event) {
                out.write(object.serialized() + "\n")
                return true
            }
            // An event with no JSON form (SIGQUIT's status) keeps its stderr line.
            if PingRenderer.hasDiagnostic(event), let line = renderer.diagnostic(event) { OutputChannel.standardError.write(line) }
            return false
        }
        if PingRenderer.hasDiagnostic(event), let line = renderer.diagnostic(event) {
            OutputChannel.standardError.write(line)
        }
        guard renderer.readsEveryEvent else { return false }
        let text = renderer.text(event, realtime: renderer.showsTimestamps ? clock.realtimeNow : nil)
        guard !text.isEmpty else { return false }
        out.write(text)
        return true
    }
}

/// The command line turned into an engine configuration and socket options, with the
/// one-line complaint each bad value deserves (exit 64).
struct PingSettings {
    private typealias Option = PingOptions.Option
    var configuration = PingConfiguration()
    var socketOptions = ICMPSocketOptions()

    init(_ command: PingOptions) throws {
        if let text = command.count {
            guard let count = Int(text), count > 0, text.allSatisfy(\.isASCII) else {
                throw UsageError(
                    "\(Option.count.spelled): '\(PrintableText.escaped(text))' is not a count from 1 to \(Int.max)")
            }
            configuration.count = count
        }
        if let interval = command.interval {
            configuration.interval = interval
        } else if command.flood {
            configuration.interval = .zero
        }
        if let timeout = command.timeout { configuration.timeout = timeout }
        // -w 0 means none.
        if let deadline = command.deadline { configuration.deadline = deadline == .zero ? nil : deadline }
        if let size = command.size { configuration.payloadSize = size }
        if let pattern = command.pattern { configuration.payloadPattern = pattern }
        try readSocketOptions(command)
    }

    /// -t, -M and -I: how the socket is set up (-I checked here: it names an interface or an
    /// address of this host).
    private mutating func readSocketOptions(_ command: PingOptions) throws {
        socketOptions.ttl = command.ttl ?? socketOptions.ttl
        socketOptions.pathMTUDiscovery = command.mtuDiscovery ?? socketOptions.pathMTUDiscovery
        socketOptions.broadcast = command.broadcast
        if let name = command.interface {
            if let address = try? IPAddress.parse(name).resolvingZone() {
                socketOptions.sourceAddress = address
            } else if NetworkInterface.index(named: name) != nil {
                socketOptions.interface = name
            } else {
                throw UsageError("\(Option.interface.spelled): unknown interface '\(PrintableText.escaped(name))'")
            }
        }
    }

    /// Opens ICMP sockets with `open`, its failures said as the user's mistakes they are.
    func opening<Sockets>(_ open: () throws -> Sockets) throws -> Sockets {
        do {
            return try open()
        } catch let denied as ICMPPermissionDenied {
            throw PermissionError(denied.withRemedy)
        } catch let error as SystemCallError where error.errno == .addressNotAvailable {
            // Binding -I's source address is the only call that can say this: the host has no
            // such address, a mistake in the command line.
            guard let source = socketOptions.sourceAddress else { throw error }
            throw UsageError("\(Option.interface.spelled): \(source) is not an address of this host")
        }
    }

    /// Checks that need the target's family: the largest datagram of each.
    func check(for family: AddressFamily) throws {
        let limit = icmpFamily(for: family).largestEchoData
        if configuration.payloadSize > limit {
            throw UsageError(
                "\(Option.size.spelled): \(configuration.payloadSize) bytes do not fit an \(family.label) datagram (at most \(limit))")
        }
        if let source = socketOptions.sourceAddress {
            try FamilyMismatch.check(source, against: family, target: "\(Option.interface.spelled): \(source)")
        }
    }

    /// iputils -p's bytes: hex digits read two at a time (its sscanf "%2x"), so an odd last
    /// digit is a byte of its own; nil for anything but 1 to 32 hex digits.
    static func pattern(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        // 0-9, then a-f in either case.
        let isHex: (UInt8) -> Bool = { (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) }
        guard (1...2 * mostPatternBytes).contains(digits.count), digits.allSatisfy(isHex) else { return nil }
        return stride(from: 0, to: digits.count, by: 2).compactMap { start in
            UInt8(String(decoding: digits[start..<min(start + 2, digits.count)], as: UTF8.self), radix: 16)
        }
    }

    /// printf's "%02x".
    static func hexByte(_ byte: UInt8) -> String {
        (byte < 16 ? "0" : "") + String(byte, radix: 16)
    }

    /// The most seconds -i, -W, --period and --squiet take: a day, as -w.
    static let mostSeconds = 86_400
    /// -t's values, which its help says and its reader takes.
    static let ttls = 1...255
    /// -p's longest pattern, as iputils' (ping/ping_common.c, fill()).
    static let mostPatternBytes = 16
}

import ArgumentParser
import ReachCore
import ReachSystem

/// `reach ping`: iputils ping's options, output and exit codes, on the ReachCore engine.
struct PingCommand: ParsableCommand, ReachRunnable {
    static let configuration = CommandConfiguration(
        commandName: "ping",
        abstract: "Send ICMP echo requests and report the replies, as iputils ping does.",
        discussion: """
            Durations are seconds as numbers (fractions allowed; -w takes whole seconds, as iputils). \
            Exit status: 0 a reply came (with -c and -w: count replies), 1 no reply, 2 name not resolved, \
            64 bad input, 71 system failure, 77 not permitted (see CAPABILITIES in reach(1)).

            Several targets (or --targets-from, --generate, an fping option): fping's model and \
            output, one ICMP socket per family; exit 0 when every target answered (reach(1)).
            """
    )

    // These properties are ArgumentParser's copy of PingOptions.commandLine, the one
    // declaration of ping's options (PingArguments.swift); CommandLineDeclarationTests hold them to it.
    // The numeric options parse unconditionally: `-c -1` is a wrong value, not a missing one.
    @Argument(help: "Host names or IPv4/IPv6 literals; IPv6 may carry %interface. Several: fping's model.")
    var hosts: [String] = []

    @Option(
        name: .customShort("c", allowingJoined: true), parsing: .unconditional,
        help: ArgumentHelp("Stop after sending count probes (with -w: after count replies).", valueName: "count"))
    var count: String?

    @Option(
        name: .customShort("i", allowingJoined: true), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds between probes (default 1; several targets: between any two, default 0.01); below 0.002 needs CAP_NET_RAW.",
            valueName: "seconds"))
    var interval: String?

    @Option(
        name: .customShort("W", allowingJoined: true), parsing: .unconditional,
        help: ArgumentHelp("Seconds to wait for each reply (default 10; several targets: see reach(1)).", valueName: "seconds"))
    var timeout: String?

    @Option(
        name: .customShort("w", allowingJoined: true), parsing: .unconditional,
        help: ArgumentHelp("Stop after this many seconds, whatever is outstanding.", valueName: "seconds"))
    var deadline: String?

    @Option(
        name: .customShort("s", allowingJoined: true), parsing: .unconditional,
        help: ArgumentHelp("Data bytes per probe (default 56).", valueName: "bytes"))
    var size: String?

    @Option(
        name: .customShort("t", allowingJoined: true), parsing: .unconditional,
        help: ArgumentHelp("IP time to live / IPv6 hop limit (1-255).", valueName: "ttl"))
    var ttl: String?

    @Option(name: .customShort("I", allowingJoined: true), help: ArgumentHelp("Interface name or source address.", valueName: "interface"))
    var interface: String?

    @Option(
        name: .customShort("p", allowingJoined: true),
        help: ArgumentHelp("Fill each probe's data with this pattern: 1 to 16 bytes in hex (iputils -p).", valueName: "pattern"))
    var pattern: String?

    @Option(
        name: .customShort("M", allowingJoined: true),
        help: ArgumentHelp("Path MTU discovery: do (set DF, never fragment), want, or dont (iputils -M).", valueName: "do|want|dont"))
    var mtuDiscovery: String?

    @Flag(name: .customShort("4"), help: "IPv4 only.")
    var ipv4 = false

    @Flag(name: .customShort("6"), help: "IPv6 only.")
    var ipv6 = false

    @Flag(name: .customShort("q"), help: "Quiet: the header and the statistics only.")
    var quiet = false

    @Flag(name: .customShort("n"), help: "Numeric output (reach never looks up names of repliers).")
    var numeric = false

    @Flag(name: .customShort("D"), help: "Print a timestamp before each line.")
    var timestamps = false

    @Flag(name: .customShort("O"), help: "Report outstanding replies before sending the next probe.")
    var outstanding = false

    @Flag(name: .customShort("f"), help: "Flood: as fast as replies come, at least 100 a second (needs CAP_NET_RAW).")
    var flood = false

    @Flag(name: .long, help: "One JSON object per event, then a summary (schema in reach(1)).")
    var json = false

    // Several targets (fping's options where iputils has none; iputils' letters keep their meaning).
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Several targets: seconds between probes to one target (fping -p; default 1).", valueName: "seconds"))
    var period: String?

    @Flag(name: .long, help: "Several targets: print the targets that answered (fping -a).")
    var alive = false

    @Flag(name: .long, help: "Several targets: print the targets that did not answer (fping -u).")
    var unreachable = false

    @Flag(name: .customLong("each-rtt"), help: "Several targets: each probe's round trip in the summary, '-' for a loss (fping -C).")
    var eachRTT = false

    @Option(
        name: .customLong("targets-from"),
        help: ArgumentHelp("Read targets from FILE, one a line ('-': standard input).", valueName: "file"))
    var targetsFrom: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Ping every host address of a prefix, or from START to the END given as operand (fping -g; at most 65536).",
            valueName: "cidr|start"))
    var generate: String?

    @Flag(name: .long, help: "Several targets: each alive line with its round trip (fping -e).")
    var elapsed = false

    @Flag(name: .long, help: "Several targets: totals over the run on stderr at the end (fping -s).")
    var stats = false

    @Flag(name: .long, help: "Several targets: probe until interrupted, a line per probe (fping -l).")
    var loop = false

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Several targets: counters of the last interval every this many seconds, on stderr (fping -Q).", valueName: "seconds"))
    var squiet: String?

    /// The values as given; `PingOptions.execute` does the work (PingArguments builds the
    /// same values for plain command lines without ArgumentParser).
    var options: PingOptions {
        PingOptions(
            hosts: hosts, count: count, interval: interval, timeout: timeout, deadline: deadline, size: size, ttl: ttl,
            interface: interface, pattern: pattern, mtuDiscovery: mtuDiscovery, ipv4: ipv4, ipv6: ipv6, quiet: quiet,
            numeric: numeric, timestamps: timestamps,
            outstanding: outstanding, flood: flood, json: json, period: period, alive: alive, unreachable: unreachable,
            eachRTT: eachRTT, targetsFrom: targetsFrom, generate: generate, elapsed: elapsed, stats: stats, loop: loop,
            squiet: squiet)
    }

    func execute() throws -> ExitStatus {
        try options.execute()
    }
}

/// `reach ping`'s command line as plain values, each option's text unparsed (PingSettings
/// checks them), and the run itself.
struct PingOptions: Equatable {
    var hosts: [String] = []
    var count: String?
    var interval: String?
    var timeout: String?
    var deadline: String?
    var size: String?
    var ttl: String?
    var interface: String?
    var pattern: String?
    var mtuDiscovery: String?
    var ipv4 = false
    var ipv6 = false
    var quiet = false
    var numeric = false
    var timestamps = false
    var outstanding = false
    var flood = false
    var json = false
    var period: String?
    var alive = false
    var unreachable = false
    var eachRTT = false
    var targetsFrom: String?
    var generate: String?
    var elapsed = false
    var stats = false
    var loop = false
    var squiet: String?

    /// Options only fping's model has. A target list (`--targets-from`, `--generate`) is
    /// one of them even when it holds a single target: a script that gives a list expects
    /// fping's lines and its ending, not an iputils ping that runs until interrupted.
    var asksForFanout: Bool {
        period != nil || alive || unreachable || eachRTT || targetsFrom != nil || generate != nil || elapsed || stats || loop
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
                    "--generate: '\(PrintableText.escaped(generate))' is not an address prefix such as 198.51.100.0/24, "
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
        // iputils ping_common.c: keep only CAP_NET_RAW, raise it only around socket().
        try Self.limitPrivileges(interval: settings.configuration.interval, refused: "cannot flood or use -i below 0.002 s", flood: flood)
        let address: IPAddress
        switch try resolve(host) {
        case .success(let resolved): address = resolved
        case .failure(let status): return status
        }
        try settings.check(for: address.family)
        let socket = try settings.opening { try ICMPSocket(family: address.family, options: settings.socketOptions) }
        try Capabilities.dropAll()
        return run(host: host, address: address, socket: socket, settings: settings)
    }

    private enum Resolution {
        case success(IPAddress)
        case failure(ExitStatus)
    }

    private func resolve(_ host: String) throws -> Resolution {
        let family = try requestedFamily()
        if (try? IPAddress.parse(host).resolvingZone()) == nil { try Self.checkName(host) }
        switch try SystemHostResolver().addresses(of: host, family: family, timeoutMilliseconds: Self.resolveTimeoutMilliseconds) {
        case .resolved(let addresses):
            try FamilyMismatch.check(addresses[0], against: family, target: host)
            return .success(addresses[0])
        case .notResolved(let why):
            // With --json, the event several targets give for it, on stdout.
            if json {
                OutputChannel.standard.write(PingRenderer.unresolved(host, why: why).serialized() + "\n")
            } else {
                OutputChannel.standardError.write("reach: \(PrintableText.escaped(host)): \(why)\n")
            }
            return .failure(.nameNotResolved)
        case .failed(let error):
            throw error
        }
    }

    private func run(host: String, address: IPAddress, socket: ICMPSocket, settings: PingSettings) -> ExitStatus {
        let renderer = PingRenderer(
            targetText: host, address: address, payloadSize: settings.configuration.payloadSize,
            quiet: quiet, flood: flood, showsTimestamps: timestamps, reportsOutstanding: outstanding,
            json: json)
        let out = OutputChannel.standard
        let clock = SystemClock()
        writeHeader(renderer, address: address, socket: socket, settings: settings)
        InterruptSignal.install(writingTo: socket.interruptionDescriptor)
        var loop = PingLoop(
            engine: PingEngine(target: address, identifier: socket.identifier, configuration: settings.configuration),
            transport: socket, clock: clock)
        do {
            try loop.run { event in
                // `reach ping HOST | head -2`: once the reader is gone, end as on Ctrl-C
                // rather than ping on forever into a closed pipe. Asked only after a write
                // (the class property is an exclusivity check per read: per event, in -f -q).
                if Self.write(event, renderer: renderer, to: out, clock: clock) && out.readerGone { socket.interrupt() }
            }
        } catch {
            return Self.systemFailure(error)
        }
        let status: ExitStatus = loop.engine.succeeded ? .success : .notReachable
        if json {
            out.write(renderer.summary(loop.engine, status: status).serialized() + "\n")
        } else {
            out.write(renderer.statistics(loop.engine, intervalIsZero: settings.configuration.interval == .zero))
        }
        return status
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
    var configuration = PingConfiguration()
    var socketOptions = ICMPSocketOptions()

    /// iputils MINUSERINTERVAL: 2 ms for users without CAP_NET_RAW.
    static let minimumUserInterval = TimeSpan.milliseconds(2)

    init(_ command: PingOptions) throws {
        if let text = command.count {
            guard let count = Int(text), count > 0, text.allSatisfy(\.isASCII) else {
                throw UsageError("-c: '\(PrintableText.escaped(text))' is not a count from 1 to \(Int.max)")
            }
            configuration.count = count
        }
        if let text = command.interval {
            configuration.interval = try Self.seconds(text, option: "-i", allowsZero: true)
        } else if command.flood {
            configuration.interval = .zero
        }
        if let text = command.timeout {
            configuration.timeout = try Self.seconds(text, option: "-W", allowsZero: false)
        }
        if let text = command.deadline {
            // iputils reads -w as whole seconds (its own tests expect -w0.1 to fail); 0 means none.
            guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(text), seconds <= 86_400 else {
                throw UsageError("-w: '\(PrintableText.escaped(text))' is not a whole number of seconds (0-86400)")
            }
            configuration.deadline = seconds == 0 ? nil : .seconds(seconds)
        }
        if let text = command.size {
            // The family is not known yet: the larger limit here, the target's in check(for:).
            let (ipv4, ipv6) = (ICMPv4().largestEchoData, ICMPv6().largestEchoData)
            guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let size = Int(text), size <= max(ipv4, ipv6) else {
                throw UsageError(
                    "-s: '\(PrintableText.escaped(text))' is not a data size (0 to \(ipv4) bytes over IPv4, \(ipv6) over IPv6)")
            }
            configuration.payloadSize = size
        }
        if let text = command.pattern {
            guard let pattern = Self.pattern(text) else {
                throw UsageError("-p: '\(PrintableText.escaped(text))' is not a pattern of 1 to 16 bytes in hex (such as ff or 0a1b)")
            }
            configuration.payloadPattern = pattern
        }
        try readSocketOptions(command)
    }

    /// -t, -M and -I: how the socket is set up.
    private mutating func readSocketOptions(_ command: PingOptions) throws {
        if let text = command.ttl {
            guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let ttl = Int(text), (1...255).contains(ttl) else {
                throw UsageError("-t: '\(PrintableText.escaped(text))' is not a ttl of 1 to 255")
            }
            socketOptions.ttl = ttl
        }
        if let text = command.mtuDiscovery {
            switch text {
            case "do": socketOptions.pathMTUDiscovery = .do
            case "want": socketOptions.pathMTUDiscovery = .want
            case "dont": socketOptions.pathMTUDiscovery = .dont
            default: throw UsageError("-M: '\(PrintableText.escaped(text))' is not do, want or dont")
            }
        }
        if let name = command.interface {
            if let address = try? IPAddress.parse(name).resolvingZone() {
                socketOptions.sourceAddress = address
            } else if NetworkInterface.index(named: name) != nil {
                socketOptions.interface = name
            } else {
                throw UsageError("-I: unknown interface '\(PrintableText.escaped(name))'")
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
            throw UsageError("-I: \(source) is not an address of this host")
        }
    }

    /// Checks that need the target's family: the largest datagram of each.
    func check(for family: AddressFamily) throws {
        let limit = icmpFamily(for: family).largestEchoData
        if configuration.payloadSize > limit {
            throw UsageError("-s: \(configuration.payloadSize) bytes do not fit an \(family.label) datagram (at most \(limit))")
        }
        if let source = socketOptions.sourceAddress {
            try FamilyMismatch.check(source, against: family, target: "-I: \(source)")
        }
    }

    /// iputils -p's bytes: hex digits read two at a time (its sscanf "%2x"), so an odd last
    /// digit is a byte of its own; nil for anything but 1 to 32 hex digits.
    static func pattern(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        // 0-9, then a-f in either case.
        let isHex: (UInt8) -> Bool = { (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) }
        guard (1...32).contains(digits.count), digits.allSatisfy(isHex) else { return nil }
        return stride(from: 0, to: digits.count, by: 2).compactMap { start in
            UInt8(String(decoding: digits[start..<min(start + 2, digits.count)], as: UTF8.self), radix: 16)
        }
    }

    /// printf's "%02x".
    static func hexByte(_ byte: UInt8) -> String {
        (byte < 16 ? "0" : "") + String(byte, radix: 16)
    }

    /// Seconds as iputils takes them: a plain decimal number, fractions allowed.
    static func seconds(_ text: String, option: String, allowsZero: Bool) throws -> TimeSpan {
        let digits = text.filter { $0 != "." }
        guard !digits.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            text.filter({ $0 == "." }).count <= 1, let value = Double(text), value <= 86_400
        else {
            throw UsageError("\(option): '\(PrintableText.escaped(text))' is not a number of seconds (such as 1 or 0.2)")
        }
        let nanoseconds = Int64((value * 1e9).rounded())
        if !allowsZero && nanoseconds == 0 { throw UsageError("\(option) must be more than 0 seconds") }
        return .nanoseconds(nanoseconds)
    }
}

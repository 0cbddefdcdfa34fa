import ReachCommandLine
import ReachCore
import ReachSystem

extension TraceOptions {
    /// Checks the command line, resolves the host, asks the kernel for its verdict (hop 0),
    /// then runs one pass and prints it as traceroute does.
    func execute() throws -> ExitStatus {
        let settings = try self.settings()
        let host = operands[0]
        try Capabilities.limitToNetRaw()
        guard let target = try resolve(host) else { return .nameNotResolved }
        if let source, source.family != target.family {
            throw UsageError("\(Option.source.spelled): \(source) is not an \(target.family.label) address, as \(target) is")
        }
        if let refused = try hopZero(target, host: host) {
            OutputChannel.standardError.write(refused)
            return .notReachable
        }
        // Every flow's socket opened before privileges are dropped.
        let transports = try (0..<settings.flows).map { _ in try open(settings, target) }
        try Capabilities.dropAll()
        if reportsRounds { return try runReport(settings: settings, host: host, target: target, transport: transports[0]) }
        if transports.count > 1 { return try runFlows(settings: settings, host: host, target: target, transports: transports) }
        return try run(settings: settings, host: host, target: target, transport: transports[0])
    }

    private func open(_ settings: TraceSettings, _ target: IPAddress) throws -> SocketTraceTransport {
        do {
            return try SocketTraceTransport(settings: settings, target: target)
        } catch let error as SystemCallError where error.errno == .addressNotAvailable {
            throw UsageError("\(Option.source.spelled): \(settings.source.map { "\($0)" } ?? "") is not an address of this host")
        } catch let error as SystemCallError where settings.method == .tcp && [.notPermitted, .permissionDenied].contains(error.errno) {
            // traceroute's tcp method too needs a raw socket (mod-tcp.c tcp_init).
            throw PermissionError(
                "trace: \(Option.tcp.spelled) needs a raw socket: CAP_NET_RAW is not permitted "
                    + "(setcap cap_net_raw+p on the reach binary, or run as root)")
        }
    }

    /// The settings the options ask for, or the usage error that refuses them.
    func settings() throws -> TraceSettings {
        guard (1...2).contains(operands.count) else {
            throw UsageError(operands.isEmpty ? "trace: a host is required" : "trace: too many operands (host [packetlen])")
        }
        var settings = TraceSettings()
        settings.method = method
        settings.port = port
        settings.probesPerHop = probesPerHop ?? settings.probesPerHop
        settings.maxHops = maxHops ?? settings.maxHops
        settings.firstHop = firstHop ?? settings.firstHop
        settings.waits = waits ?? settings.waits
        settings.simultaneous = simultaneous ?? settings.simultaneous
        settings.source = source
        if let interface, NetworkInterface.index(named: interface) == nil {
            throw UsageError("\(Option.interface.spelled): unknown interface '\(PrintableText.escaped(interface))'")
        }
        settings.interface = interface
        settings.tos = tos.map { UInt8($0) }
        settings.flows = flows ?? 1
        if operands.count == 2 {
            guard let length = Int(operands[1]), (0...65_000).contains(length) else {
                throw UsageError("trace: '\(PrintableText.escaped(operands[1]))' is not a packet length of 0 to 65000 bytes")
            }
            settings.packetLength = length
        }
        if let problem = settings.problem { throw UsageError("trace: \(problem) (\(Option.firstHop.spelled), \(Option.maxHops.spelled))") }
        return settings
    }

    /// The host's address: a literal, or its first address of the family asked (IPv4 first
    /// when either will do, as traceroute's DEF_AF). Nil, said on stderr, when it does not resolve.
    private func resolve(_ host: String) throws -> IPAddress? {
        let family = try PathOptions(ipv4: ipv4, ipv6: ipv6).family(for: "a trace")
        if let literal = try? IPAddress.parse(host).resolvingZone() {
            try FamilyMismatch.check(literal, against: family, target: host)
            return literal
        }
        try TargetText.checkName(host)
        switch try SystemHostResolver().addresses(of: host, family: family, timeout: PingSession.resolveTimeout) {
        case .resolved(let addresses):
            return addresses.first { $0.family == .ipv4 } ?? addresses[0]
        case .notResolved(let why):
            OutputChannel.standardError.write("reach: \(PrintableText.escaped(host)): \(why)\n")
            return nil
        case .failed(let error):
            throw error
        }
    }

    /// Hop 0: the kernel's route verdict for the destination, as `reach addr` gives it. A
    /// local address is refused (there is no path to trace); a destination the kernel will
    /// not route is named before any probe is sent: the line for stderr.
    private func hopZero(_ target: IPAddress, host: String) throws -> String? {
        // The route and its link are the verdict; what ModemManager and NetworkManager say of
        // the link (asked over the system bus) changes no verdict trace can give, so it is
        // not asked: a trace's start-up is part of what it is measured by.
        let evaluator = try PathOptions().makeEvaluator(linkFacts: nil)
        let report = try evaluator.evaluate(address: target)
        guard let path = report.paths.first else { return nil }
        if path.flags.contains(.isLocalAddress) {
            throw UsageError("trace: \(PrintableText.escaped(host)) (\(target)) is an address of this host: there is no path to trace")
        }
        guard path.reason != nil else { return nil }
        return "hop 0: \(target): \(ReportRenderer(showsFlags: false).describe(path)); no probe sent\n"
    }

    private func run(settings: TraceSettings, host: String, target: IPAddress, transport: SocketTraceTransport) throws -> ExitStatus {
        let out = OutputChannel.standard
        out.write(
            TraceRenderer.header(
                host: host, address: target, maxHops: settings.maxHops, packetBytes: settings.packetBytes(for: target.family)))
        InterruptSignal.install(writingTo: transport.socket.interruptionDescriptor)
        var renderer = TraceRenderer(numeric: numeric)
        renderer.showsExtensions = extensions
        let engine = TraceEngine(settings: settings, family: target.family, transport: transport)
        let result = try engine.pass { event in
            guard case .probe(let outcome) = event else { return }
            out.write(renderer.text(outcome))
            // `reach trace HOST | head -3`: once the reader is gone, end as on Ctrl-C.
            if out.readerGone { transport.interrupt() }
        }
        out.write(TraceRenderer.end)
        OutputChannel.standardError.write(TraceRenderer.closing(result))
        return result.reachedDestination ? .success : .notReachable
    }

    /// --flows: a pass per flow, one after the other, then a line per hop naming the flows
    /// where their routers differ. Exit 0 when every flow reached the destination.
    private func runFlows(settings: TraceSettings, host: String, target: IPAddress, transports: [SocketTraceTransport]) throws -> ExitStatus
    {
        let out = OutputChannel.standard
        let header = TraceRenderer.header(
            host: host, address: target, maxHops: settings.maxHops, packetBytes: settings.packetBytes(for: target.family))
        out.write(header + ", \(transports.count) flows\n")
        var results: [TraceResult] = []
        for transport in transports {
            InterruptSignal.install(writingTo: transport.socket.interruptionDescriptor)
            let result = try TraceEngine(settings: settings, family: target.family, transport: transport).pass { _ in }
            results.append(result)
            if result.stop == .cutShort { break }
        }
        let table = TraceFlowTable(results: results)
        out.write(table.lines().map { $0 + "\n" }.joined())
        OutputChannel.standardError.write(TraceRenderer.closing(results[0]) + table.closing)
        return results.allSatisfy(\.reachedDestination) ? .success : .notReachable
    }
}

import ReachCommandLine
import ReachCore
import ReachSystem

extension TraceOptions {
    /// mtr's defaults (mtr.c): 10 rounds (MaxPing), a second apart (WaitTime).
    static let defaultRounds = 10
    static let defaultInterval = TimeSpan.seconds(1)

    /// Whether this run is mtr's rounds rather than traceroute's one pass.
    var reportsRounds: Bool { report || rounds != nil || interval != nil || json }

    /// The live table: `--interval` alone (no --report, -c or --json) with a terminal on
    /// both ends, standard output to draw on and standard input to read `q` from.
    var drawsLiveTable: Bool {
        !report && rounds == nil && !json && interval != nil && FileDescriptor.Number.standardOutput.isTerminal
    }

    /// Rounds of one probe per hop, then mtr's report (or reach's JSON). Exit 0 when the
    /// destination answered the last hop listed, 1 when not.
    func runReport(settings: TraceSettings, host: String, target: IPAddress, transport: SocketTraceTransport) throws -> ExitStatus {
        guard settings.flows == 1 else {
            throw UsageError("trace: \(Option.flows.spelled) traces one pass per flow; a report is rounds of one flow")
        }
        var perRound = settings
        perRound.probesPerHop = 1
        let engine = TraceEngine(settings: perRound, family: target.family, transport: transport)
        InterruptSignal.install(writingTo: transport.socket.interruptionDescriptor)
        let cache = NameCache()
        let renderer = TraceReportRenderer(
            localHostName: LocalHost.name, showsExtensions: extensions, names: numeric ? nil : { cache.name(of: $0) })
        let start = RealtimeInstant.now()
        let keyboard = drawsLiveTable ? KeyboardTerminal() : nil
        let rounds = TraceRounds(
            count: keyboard == nil ? rounds ?? Self.defaultRounds : nil, interval: interval ?? Self.defaultInterval)
        let report = try rounds.run(engine: engine, transport: transport, destination: target, clock: MonotonicInstant.now) { report in
            guard let keyboard else { return true }
            OutputChannel.standard.write(Self.liveScreen(renderer.lines(report, start: start), host: host, target: target))
            return !keyboard.pendingKeys().contains(UInt8(ascii: "q"))
        }
        keyboard?.restore()
        if json {
            OutputChannel.standard.write(report.json(target: host).serialized() + "\n")
        } else {
            OutputChannel.standard.write(renderer.lines(report, start: start).map { $0 + "\n" }.joined())
        }
        return report.reachedDestination ? .success : .notReachable
    }

    /// One frame of the live table: the screen cleared and the cursor home (ECMA-48 ED and
    /// CUP), a title as mtr's, the report so far, the keys.
    static func liveScreen(_ lines: [String], host: String, target: IPAddress) -> String {
        let title = "reach trace to \(PrintableText.escaped(host)) (\(target)), round by round; q or Ctrl-C: stop and print the report"
        return "\u{1b}[H\u{1b}[2J" + title + "\n" + lines.dropFirst().map { $0 + "\n" }.joined()
    }
}

/// Each hop's name looked up once (getnameinfo), not at every redraw of the live table.
final class NameCache {
    private var known: [IPAddress: String?] = [:]

    func name(of address: IPAddress) -> String? {
        if let name = known[address] { return name }
        let name = AddressName.lookup(address)
        known[address] = name
        return name
    }
}

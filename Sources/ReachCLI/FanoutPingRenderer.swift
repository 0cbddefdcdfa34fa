import ReachCore
import ReachSystem

/// `reach ping A B C ...` output, as fping 5.1 prints it (src/fping.c): a line per reply
/// and per timeout on stdout (`host : [0], 64 bytes, 0.05 ms (0.05 avg, 0% loss)`), ICMP
/// errors and the per-target summaries on stderr, names padded to the longest; or, with
/// --json, one object per event naming its target.
final class FanoutPingRenderer {
    private let quiet: Bool
    private let json: Bool
    private let timestamps: Bool
    private let eachRTT: Bool
    private let alive: Bool
    private let unreachable: Bool
    /// With a count, fping's count mode: per-probe lines and summaries. Without, its
    /// default mode: "is alive" / "is unreachable".
    private let countMode: Bool
    private var names: [String] = []
    private var addresses: [IPAddress] = []
    private var width = 0
    private let out = OutputChannel.standard
    private let err = OutputChannel.standardError

    init(options: PingOptions, count: Int?) {
        quiet = options.quiet
        json = options.json
        timestamps = options.timestamps
        eachRTT = options.eachRTT
        alive = options.alive
        unreachable = options.unreachable
        countMode = count != nil
    }

    /// The targets of the run, by their position in the engine.
    func bind(names: [String], addresses: [IPAddress]) {
        self.names = names
        self.addresses = addresses
        width = names.reduce(0) { max($0, $1.count) }
    }

    private func padded(_ target: Int) -> String {
        let name = names[target]
        return name.count < width ? name + String(repeating: " ", count: width - name.count) : name
    }

    private func event(_ name: String, _ target: Int, _ fields: [(String, JSONValue)]) -> String {
        JSONValue.object(
            [("schema", .int(jsonSchemaVersion)), ("command", .string("ping")), ("event", .string(name)),
             ("target", .string(names[target])), ("address", .string(addresses[target].description))] + fields
        ).serialized() + "\n"
    }

    /// A name that did not resolve: left out of the run, as fping leaves it.
    func unresolved(_ name: String, why: String) {
        if json {
            out.write(PingRenderer.unresolved(name, why: why).serialized() + "\n")
        } else {
            err.write("reach: \(PrintableText.escaped(name)): \(why)\n")
        }
    }

    func handle(_ event: FanoutPingEvent, engine: FanoutPingEngine) {
        if json {
            if let line = jsonLine(event) { out.write(line) }
            return
        }
        switch event {
        case .reply(let target, let index, let bytes, let rtt, let from, _):
            let counters = engine.statistics[target]
            if !countMode {
                // fping prints a target alive at its first reply; -u prints only the others.
                if counters.received == 1 && (alive || (!quiet && !unreachable)) {
                    out.write(alive ? names[target] + "\n" : "\(names[target]) is alive\n")
                }
                return
            }
            guard !quiet else { return }
            var line = stamp() + "\(padded(target)) : [\(index)], \(bytes) bytes, \(Self.time(rtt)) ms"
            line += " (\(Self.time(counters.averageNanoseconds ?? 0)) avg, \(counters.lossPercent)% loss)"
            if from.bytes != addresses[target].bytes { line += " [<- \(from)]" }
            out.write(line + "\n")
        case .duplicate(let target, let index, let bytes, let rtt, let from, _):
            // fping prints duplicates only when it prints no per-probe lines (-q).
            guard quiet && countMode else { return }
            var line = "\(names[target]) : duplicate for [\(index)], \(bytes) bytes, \(Self.time(rtt)) ms"
            if from.bytes != addresses[target].bytes { line += " [<- \(from)]" }
            err.write(line + "\n")
        case .timedOut(let target, let index):
            guard countMode && !quiet else { return }
            let counters = engine.statistics[target]
            let average = counters.averageNanoseconds.map(Self.time) ?? "NaN"
            out.write(stamp() + "\(padded(target)) : [\(index)], timed out (\(average) avg, \(counters.lossPercent)% loss)\n")
        case .icmpError(let target, _, let from, let type, let code):
            guard !quiet else { return }
            let words = Self.describe(type: type, code: code, family: addresses[target].family)
            err.write("\(words) from \(from) for ICMP Echo sent to \(names[target])\n")
        case .localError(let target, _, let error):
            guard !quiet else { return }
            err.write("\(names[target]): \(error)\n")
        case .sendFailed(let target, _, let error):
            // fping says so only in its default mode (verbose_flag, which -c, -q, -a and -u clear).
            guard !quiet && !countMode && !alive && !unreachable else { return }
            err.write("\(names[target]): error while sending ping: \(UnreachableReason.describe(refusal: error))\n")
        case .finished:
            break
        }
    }

    /// The probe's `seq` (from 1) and `index` (from 0), as one target's run names them.
    private func probe(_ index: Int) -> [(String, JSONValue)] {
        PingRenderer.probeKeys(sequence: index + 1)
    }

    private func jsonLine(_ event: FanoutPingEvent) -> String? {
        switch event {
        case .reply(let target, let index, let bytes, let rtt, let from, let ttl),
            .duplicate(let target, let index, let bytes, let rtt, let from, let ttl):
            let duplicate: Bool = if case .duplicate = event { true } else { false }
            return self.event(
                "reply", target,
                probe(index) + [
                    ("from", .string(from.description)), ("ttl", ttl.map { .int(Int64($0)) } ?? .null), ("bytes", .int(Int64(bytes))),
                    ("rtt_ms", .number(Double(rtt) / 1e6)), ("duplicate", .bool(duplicate)),
                ])
        case .timedOut(let target, let index):
            return self.event("timeout", target, probe(index))
        case .icmpError(let target, let index, let from, let type, let code):
            return self.event(
                "icmp_error", target,
                probe(index) + [
                    ("from", .string(from.description)), ("icmp_type", .int(Int64(type.rawValue))), ("icmp_code", .int(Int64(code))),
                    ("text", .string(Self.describe(type: type, code: code, family: addresses[target].family))),
                ])
        case .localError(let target, let index, let error):
            return self.event(
                "local_error", target,
                probe(index) + [("errno", .int(Int64(error.rawValue))), ("error", .string(error.description))])
        case .sendFailed(let target, let index, let error):
            return self.event("send_failed", target, probe(index) + PingRenderer.refusalKeys(error))
        case .finished:
            return nil
        }
    }

    /// SIGQUIT: the summaries so far, on stderr (fping prints its splits).
    func status(_ engine: FanoutPingEngine) {
        err.write(summaries(engine))
    }

    /// The end of the run: summaries (count mode) or the unreachable targets (default
    /// mode), and the exit status: 2 when a name did not resolve, else 0 when every
    /// target answered, else 1 (fping's order).
    func end(_ engine: FanoutPingEngine?, names: [String], unresolved: Int) -> ExitStatus {
        let answered = engine?.aliveCount ?? 0
        let status: ExitStatus = unresolved > 0 ? .nameNotResolved : answered == names.count ? .success : .notReachable
        guard let engine else {
            if json { out.write(endEvent(targets: unresolved, alive: 0, unresolved: unresolved, status: status)) }
            return status
        }
        if json {
            var text = ""
            for target in names.indices { text += summaryEvent(engine, target) }
            out.write(text + endEvent(targets: names.count + unresolved, alive: answered, unresolved: unresolved, status: status))
            return status
        }
        if countMode {
            // fping: a blank line first when per-probe lines were printed.
            err.write((quiet ? "" : "\n") + summaries(engine))
        }
        var listed = ""
        for target in names.indices {
            let answeredOnce = engine.statistics[target].received > 0
            if countMode && ((alive && answeredOnce) || (unreachable && !answeredOnce)) {
                listed += names[target] + "\n"
            } else if !countMode && !answeredOnce && (unreachable || (!alive && !quiet)) {
                listed += unreachable ? names[target] + "\n" : "\(names[target]) is unreachable\n"
            }
        }
        out.write(listed)
        return status
    }

    /// fping print_per_system_stats: `host : xmt/rcv/%loss = 3/3/0%, min/avg/max = a/b/c`,
    /// or with --each-rtt each probe's round trip (`-` for a loss).
    private func summaries(_ engine: FanoutPingEngine) -> String {
        var text = ""
        for target in names.indices {
            let counters = engine.statistics[target]
            text += "\(padded(target)) :"
            if eachRTT {
                for rtt in counters.roundTrips.prefix(counters.sent) { text += rtt >= 0 ? " " + Self.time(rtt) : " -" }
            } else {
                text += " xmt/rcv/%loss = \(counters.sent)/\(counters.received)/\(counters.lossPercent)%"
                if let average = counters.averageNanoseconds {
                    text += ", min/avg/max = \(Self.time(counters.minimumNanoseconds))/\(Self.time(average))"
                        + "/\(Self.time(counters.maximumNanoseconds))"
                }
            }
            text += "\n"
        }
        return text
    }

    private func summaryEvent(_ engine: FanoutPingEngine, _ target: Int) -> String {
        let counters = engine.statistics[target]
        let rtt: JSONValue =
            counters.averageNanoseconds.map { average in
                .object([
                    ("min", .number(Double(counters.minimumNanoseconds) / 1e6)), ("avg", .number(Double(average) / 1e6)),
                    ("max", .number(Double(counters.maximumNanoseconds) / 1e6)),
                ])
            } ?? .null
        var fields: [(String, JSONValue)] = [
            ("transmitted", .int(Int64(counters.sent))), ("received", .int(Int64(counters.received))),
            ("loss_percent", .number(Double(counters.lossPercent))), ("rtt_ms", rtt), ("alive", .bool(counters.received > 0)),
        ]
        if eachRTT {
            let each = counters.roundTrips.prefix(counters.sent).map { $0 >= 0 ? JSONValue.number(Double($0) / 1e6) : .null }
            fields.append(("rtts_ms", .array(each)))
        }
        return event("summary", target, fields)
    }

    private func endEvent(targets: Int, alive: Int, unresolved: Int, status: ExitStatus) -> String {
        JSONValue.object([
            ("schema", .int(jsonSchemaVersion)), ("command", .string("ping")), ("event", .string("end")),
            ("targets", .int(Int64(targets))), ("alive", .int(Int64(alive))), ("unresolved", .int(Int64(unresolved))),
            ("exit_status", .int(Int64(status.rawValue))),
        ]).serialized() + "\n"
    }

    /// fping -D: the receive time, `[1732500000.12345] `.
    private func stamp() -> String {
        guard timestamps else { return "" }
        let now = SystemClock.realtimeNanoseconds()
        let fraction = String((now % 1_000_000_000) / 10_000)
        return "[\(now / 1_000_000_000).\(String(repeating: "0", count: 5 - fraction.count))\(fraction)] "
    }

    /// fping sprint_tm: milliseconds with three significant digits ("0.052", "1.23",
    /// "12.3", "123"), and "%.3e" from a million milliseconds on.
    static func time(_ nanoseconds: Int64) -> String {
        let milliseconds = Double(nanoseconds) / 1e6
        if milliseconds < 1 { return fixed(milliseconds, decimals: 3) }
        if milliseconds < 10 { return fixed(milliseconds, decimals: 2) }
        if milliseconds < 100 { return fixed(milliseconds, decimals: 1) }
        return fixed(milliseconds, decimals: 0)
    }

    /// printf's "%.Nf" for a non-negative value.
    static func fixed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((max(0, value) * scale).rounded(.toNearestOrEven))
        guard decimals > 0 else { return String(scaled) }
        let divisor = Int64(scale)
        let fraction = String(scaled % divisor)
        return "\(scaled / divisor)." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    /// fping's words for an ICMP error (icmp_unreach_str, icmp_type_str); for ICMPv6, whose
    /// types fping 5.1 reads with the IPv4 tables, iputils' words after "ICMPv6".
    static func describe(type: ICMPType, code: UInt8, family: AddressFamily) -> String {
        guard family == .ipv4 else { return "ICMPv6 " + ICMPv6().describe(type: type, code: code, info: 0) }
        switch type.rawValue {
        case 3:
            return Int(code) < unreachableTexts.count ? unreachableTexts[Int(code)] : "ICMP Unreachable (Invalid Code)"
        case 4: return "ICMP Source Quench"
        case 5: return "ICMP Redirect"
        case 11: return "ICMP Time Exceeded"
        case 12: return "ICMP Parameter Problem"
        default: return "ICMP \(type.rawValue)"
        }
    }

    /// fping src/fping.c icmp_unreach_str, by code.
    static let unreachableTexts = [
        "ICMP Network Unreachable", "ICMP Host Unreachable", "ICMP Protocol Unreachable", "ICMP Port Unreachable",
        "ICMP Unreachable (Fragmentation Needed)", "ICMP Unreachable (Source Route Failed)",
        "ICMP Unreachable (Destination Network Unknown)", "ICMP Unreachable (Destination Host Unknown)",
        "ICMP Unreachable (Source Host Isolated)", "ICMP Unreachable (Communication with Network Prohibited)",
        "ICMP Unreachable (Communication with Host Prohibited)", "ICMP Unreachable (Network Unreachable For Type Of Service)",
        "ICMP Unreachable (Host Unreachable For Type Of Service)", "ICMP Unreachable (Communication Administratively Prohibited)",
        "ICMP Unreachable (Host Precedence Violation)", "ICMP Unreachable (Precedence cutoff in effect)",
    ]
}

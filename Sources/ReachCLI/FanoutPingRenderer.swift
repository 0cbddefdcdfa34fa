import ReachCommandLine
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
    private let elapsed: Bool
    private let stats: Bool
    /// --percentiles: p50/p90/p99 after each summary's min/avg/max.
    private let percentiles: Bool
    /// With a count, fping's count mode: per-probe lines and summaries. Without, its
    /// default mode: "is alive" / "is unreachable".
    private let countMode: Bool
    private var names: [String] = []
    private var addresses: [IPAddress] = []
    private var width = 0
    /// For --stats (fping print_global_stats): when the run began, and the counts no
    /// target's counters hold.
    private let startTime = MonotonicInstant.now()
    private var timeouts = 0
    private var otherICMP = 0
    /// For --squiet (fping's `_i` counters): each target's counters at the last report,
    /// and its round trips since.
    private var reported: [(sent: Int, received: Int)] = []
    private var intervalTimes: [(minimum: TimeSpan, maximum: TimeSpan, total: TimeSpan)] = []
    private let out = OutputChannel.standard
    private let err = OutputChannel.standardError

    init(options: PingOptions, count: Int?) {
        // fping -Q implies -q: the interval reports replace the per-probe lines.
        quiet = options.quiet || options.squiet != nil
        json = options.json
        timestamps = options.timestamps
        eachRTT = options.eachRTT
        alive = options.alive
        unreachable = options.unreachable
        elapsed = options.elapsed
        stats = options.stats
        percentiles = options.percentiles
        countMode = count != nil
    }

    /// The targets of the run, by their position in the engine.
    func bind(names: [String], addresses: [IPAddress]) {
        self.names = names
        self.addresses = addresses
        width = names.reduce(0) { max($0, $1.count) }
        reported = Array(repeating: (0, 0), count: names.count)
        intervalTimes = Array(repeating: (.zero, .zero, .zero), count: names.count)
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

    func handle(_ event: PingEvent, engine: PingEngine) {
        if case .statusRequested = event {
            // SIGQUIT: the summaries so far, on stderr (fping prints its splits).
            return err.write(summaries(engine))
        }
        count(event)
        if json {
            if let line = jsonLine(event) { out.write(line) }
            return
        }
        switch event {
        case .reply(let reply) where reply.duplicate:
            // fping prints duplicates only when it prints no per-probe lines (-q).
            guard quiet && countMode else { return }
            let target = reply.probe.target
            var line = "\(names[target]) : duplicate for [\(reply.probe.index)], \(reply.bytes) bytes, \(Self.time(reply.roundTrip)) ms"
            if reply.from.bytes != addresses[target].bytes { line += " [<- \(reply.from)]" }
            err.write(line + "\n")
        case .reply(let reply):
            write(reply, counters: engine.statistics[reply.probe.target])
        case .timedOut(let probe):
            guard countMode && !quiet else { return }
            let counters = engine.statistics[probe.target]
            let average = counters.average.map(Self.time) ?? "NaN"
            out.write(
                stamp() + "\(padded(probe.target)) : [\(probe.index)], timed out (\(average) avg, \(counters.settledLossPercent)% loss)\n")
        case .icmpError(let error):
            guard !quiet else { return }
            let target = error.probe.target
            let words = Self.describe(type: error.type, code: error.code, family: addresses[target].family)
            err.write("\(words) from \(error.from) for ICMP Echo sent to \(names[target])\n")
        case .localError(let probe, let error, _):
            guard !quiet else { return }
            err.write("\(names[probe.target]): \(error)\n")
        case .sendFailed(let probe, let error):
            // fping says so only in its default mode (verbose_flag, which -c, -q, -a and -u clear).
            guard !quiet && !countMode && !alive && !unreachable else { return }
            let why = AccessRefusal.describe(
                error, toward: addresses[probe.target], broadcastOption: PingOptions.Option.broadcast.spelled)
            err.write("\(names[probe.target]): error while sending ping: \(why)\n")
        case .started, .failed, .sent, .unexpected, .statusRequested, .finished:
            break
        }
    }

    /// A reply's line: in count mode each one, in the default mode the target alive.
    private func write(_ reply: PingReply, counters: PingStatistics) {
        let target = reply.probe.target
        if !countMode {
            // fping prints a target alive at its first reply; -u prints only the others.
            guard counters.received == 1 && (alive || (!quiet && !unreachable)) else { return }
            // fping -e: the round trip of the reply that showed the target alive.
            let time = elapsed ? " (\(Self.time(reply.roundTrip)) ms)" : ""
            out.write((alive ? names[target] : "\(names[target]) is alive") + time + "\n")
            return
        }
        guard !quiet else { return }
        var line = stamp() + "\(padded(target)) : [\(reply.probe.index)], \(reply.bytes) bytes, \(Self.time(reply.roundTrip)) ms"
        line += " (\(Self.time(counters.average ?? .zero)) avg, \(counters.settledLossPercent)% loss)"
        if reply.from.bytes != addresses[target].bytes { line += " [<- \(reply.from)]" }
        out.write(line + "\n")
    }

    /// The probe's `seq` (from 1) and `index` (from 0), as one target's run names them.
    private func probe(_ index: Int) -> [(String, JSONValue)] {
        PingRenderer.probeKeys(sequence: index + 1)
    }

    private func jsonLine(_ event: PingEvent) -> String? {
        switch event {
        case .reply(let reply):
            return self.event(
                "reply", reply.probe.target,
                probe(reply.probe.index) + [
                    ("from", .string(reply.from.description)), ("ttl", reply.ttl.map { .int(Int64($0)) } ?? .null),
                    ("bytes", .int(Int64(reply.bytes))), ("rtt_ms", .milliseconds(reply.roundTrip)),
                    ("duplicate", .bool(reply.duplicate)),
                ])
        case .timedOut(let probe):
            return self.event("timeout", probe.target, self.probe(probe.index))
        case .icmpError(let error):
            let target = error.probe.target
            return self.event(
                "icmp_error", target,
                probe(error.probe.index) + [
                    ("from", .string(error.from.description)), ("icmp_type", .int(Int64(error.type.rawValue))),
                    ("icmp_code", .int(Int64(error.code))),
                    ("text", .string(Self.describe(type: error.type, code: error.code, family: addresses[target].family))),
                ])
        case .localError(let probe, let error, _):
            return self.event(
                "local_error", probe.target,
                self.probe(probe.index) + [("errno", .int(Int64(error.rawValue))), ("error", .string(error.description))])
        case .sendFailed(let probe, let error):
            let keys = PingRenderer.refusalKeys(error, toward: addresses[probe.target])
            return self.event("send_failed", probe.target, self.probe(probe.index) + keys)
        case .started, .failed, .sent, .unexpected, .statusRequested, .finished:
            return nil
        }
    }

    /// What --stats and --squiet count beside the engine's counters.
    private func count(_ event: PingEvent) {
        switch event {
        case .reply(let reply) where !reply.duplicate:
            let target = reply.probe.target
            guard target < intervalTimes.count else { return }
            let rtt = reply.roundTrip
            var times = intervalTimes[target]
            // fping stats_add: 0 stands for "none yet".
            if times.maximum == .zero || rtt > times.maximum { times.maximum = rtt }
            if times.minimum == .zero || rtt < times.minimum { times.minimum = rtt }
            times.total += rtt
            intervalTimes[target] = times
        case .timedOut: timeouts += 1
        case .icmpError: otherICMP += 1
        default: break
        }
    }

    /// --squiet: fping print_per_system_splits, on stderr: the local time of day, then each
    /// target's counters since the last report (`host : xmt/rcv/%loss = 1/1/0%, min/avg/max = ...`).
    func report(_ engine: PingEngine) {
        let (hour, minute, second) = SystemClock.localTimeOfDay()
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "[\(twoDigits(hour)):\(twoDigits(minute)):\(twoDigits(second))]\n"
        for target in names.indices {
            let counters = engine.statistics[target]
            let sent = counters.sent - reported[target].sent
            let received = counters.received - reported[target].received
            let times = intervalTimes[target]
            text += "\(padded(target)) :" + Self.counts(sent: sent, received: received)
            if received > 0 {
                let average = TimeSpan(nanoseconds: times.total.nanoseconds / Int64(received))
                text += ", min/avg/max = \(Self.time(times.minimum))/\(Self.time(average))/\(Self.time(times.maximum))"
            }
            text += "\n"
            reported[target] = (counters.sent, counters.received)
            intervalTimes[target] = (.zero, .zero, .zero)
        }
        err.write(text)
    }

    /// fping's counters: ` xmt/rcv/%loss = 3/2/33%`, or `%return` when duplicates make more
    /// replies than probes.
    static func counts(sent: Int, received: Int) -> String {
        guard received <= sent else { return " xmt/rcv/%return = \(sent)/\(received)/\(received * 100 / sent)%" }
        return " xmt/rcv/%loss = \(sent)/\(received)/\(sent > 0 ? (sent - received) * 100 / sent : 0)%"
    }

    /// --stats: fping print_global_stats, its totals over the run.
    private func globalStatistics(_ engine: PingEngine, unresolved: Int) -> String {
        func count(_ value: Int) -> String {
            let text = String(value)
            return String(repeating: " ", count: max(0, 7 - text.count)) + text
        }
        var received = 0
        var replies = 0
        var sum = TimeSpan.zero
        var minimum = TimeSpan.zero
        var maximum = TimeSpan.zero
        for counters in engine.statistics {
            received += counters.receivedTotal
            replies += counters.received
            sum += counters.total
            if counters.received > 0 {
                if minimum == .zero || counters.minimum < minimum { minimum = counters.minimum }
                maximum = max(maximum, counters.maximum)
            }
        }
        let seconds = Self.fixed((MonotonicInstant.now() - startTime).secondsValue, decimals: 3)
        return """

             \(count(names.count)) targets
             \(count(engine.aliveCount)) alive
             \(count(names.count - engine.aliveCount)) unreachable
             \(count(unresolved)) unknown addresses

             \(count(timeouts)) timeouts (waiting for response)
             \(count(engine.sentProbes)) ICMP Echos sent
             \(count(received)) ICMP Echo Replies received
             \(count(otherICMP)) other ICMP received

             \(Self.time(minimum)) ms (min round trip time)
             \(Self.time(TimeSpan(nanoseconds: replies > 0 ? sum.nanoseconds / Int64(replies) : 0))) ms (avg round trip time)
             \(Self.time(maximum)) ms (max round trip time)
             \(String(repeating: " ", count: max(0, 12 - seconds.count)) + seconds) sec (elapsed real time)


            """
    }

    /// The end of the run: summaries (count mode) or the unreachable targets (default
    /// mode), and the exit status: 2 when a name did not resolve, else 0 when every
    /// target answered, else 1 (fping's order).
    func end(_ engine: PingEngine?, names: [String], unresolved: Int) -> ExitStatus {
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
        if stats { err.write(globalStatistics(engine, unresolved: unresolved)) }
        return status
    }

    /// fping print_per_system_stats: `host : xmt/rcv/%loss = 3/3/0%, min/avg/max = a/b/c`,
    /// or with --each-rtt each probe's round trip (`-` for a loss).
    private func summaries(_ engine: PingEngine) -> String {
        var text = ""
        for target in names.indices {
            let counters = engine.statistics[target]
            text += "\(padded(target)) :"
            if eachRTT {
                for rtt in counters.roundTrips.prefix(counters.sent) { text += rtt >= .zero ? " " + Self.time(rtt) : " -" }
            } else {
                text += Self.counts(sent: counters.sent, received: counters.received)
                if let average = counters.average {
                    text += ", min/avg/max = \(Self.time(counters.minimum))/\(Self.time(average))/\(Self.time(counters.maximum))"
                    if percentiles { text += ", p50/p90/p99 = " + Self.percentiles(counters).map(Self.time).joined(separator: "/") }
                }
            }
            text += "\n"
        }
        return text
    }

    private func summaryEvent(_ engine: PingEngine, _ target: Int) -> String {
        let counters = engine.statistics[target]
        let rtt: JSONValue =
            counters.average.map { average in
                .object([
                    ("min", .milliseconds(counters.minimum)), ("avg", .milliseconds(average)), ("max", .milliseconds(counters.maximum)),
                    ("percentiles", PingRenderer.percentilesObject(Self.percentiles(counters).map { .milliseconds($0) })),
                ])
            } ?? .null
        var fields: [(String, JSONValue)] = [
            ("transmitted", .int(Int64(counters.sent))), ("received", .int(Int64(counters.received))),
            ("loss_percent", .number(Double(counters.settledLossPercent))), ("rtt_ms", rtt), ("alive", .bool(counters.received > 0)),
        ]
        if eachRTT {
            let each = counters.roundTrips.prefix(counters.sent).map { rtt -> JSONValue in
                rtt >= .zero ? .milliseconds(rtt) : .null
            }
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
        let now = RealtimeInstant.now()
        let fraction = String((now.nanoseconds % 1_000_000_000) / 10_000)
        return "[\(now.seconds).\(String(repeating: "0", count: 5 - fraction.count))\(fraction)] "
    }

    /// The 50th, 90th and 99th percentiles of the settled round trips, held within fping's
    /// min and max.
    static func percentiles(_ counters: PingStatistics) -> [TimeSpan] {
        [0.5, 0.9, 0.99].map { counters.percentile($0, minimum: counters.minimum, maximum: counters.maximum) ?? counters.minimum }
    }

    /// fping sprint_tm: milliseconds with three significant digits ("0.052", "1.23",
    /// "12.3", "123"), and "%.3e" from a million milliseconds on.
    static func time(_ span: TimeSpan) -> String {
        let milliseconds = Double(span.nanoseconds) / 1e6
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

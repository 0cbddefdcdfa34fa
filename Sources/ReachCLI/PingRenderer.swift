import ReachCore
import ReachSystem

/// What `reach ping` prints: iputils ping's lines, word for word (users' scripts parse
/// them; iputils ping/ping.c pr_icmph, ping/ping_common.c finish), or one JSON object per event.
/// A class: the run's closure uses it for every event, and a struct this size would be
/// copied (and its references retained) each time.
final class PingRenderer {
    /// As typed (a name or a literal).
    let targetText: String
    let address: IPAddress
    let payloadSize: Int
    let quiet: Bool
    let flood: Bool
    let showsTimestamps: Bool
    let reportsOutstanding: Bool
    let json: Bool
    /// iputils times replies only when the data holds its send timestamp (a 16-byte timeval);
    /// below that its text has no times, and neither has ours (JSON always has them).
    let showsTimes: Bool
    /// Whether the target was given as a name: replies from it print "name (address)".
    let targetIsName: Bool
    /// Whether `text` can say anything, or must see every event (-O keeps count of replies):
    /// not with -q alone, where a flood would build and drop an empty string per event.
    let readsEveryEvent: Bool
    /// -b, or a multicast target: many hosts answer, and iputils marks no reply as from a
    /// different address (its `multicast` and `broadcast_pings`, ping/ping.c).
    let expectsManyRepliers: Bool
    /// --percentiles: a line of p50/p90/p99 after iputils' statistics.
    let showsPercentiles: Bool
    /// Sequences answered by a reply, as iputils' rcvd_tbl bitmap (for -O).
    private var answered = [UInt64](repeating: 0, count: 1024)

    init(
        targetText: String, address: IPAddress, payloadSize: Int, quiet: Bool = false, flood: Bool = false,
        showsTimestamps: Bool = false, reportsOutstanding: Bool = false, json: Bool = false, broadcast: Bool = false,
        percentiles: Bool = false
    ) {
        showsPercentiles = percentiles
        self.targetText = targetText
        self.address = address
        self.payloadSize = payloadSize
        self.quiet = quiet
        self.flood = flood
        self.showsTimestamps = showsTimestamps
        self.reportsOutstanding = reportsOutstanding
        self.json = json
        showsTimes = payloadSize >= 16
        targetIsName = targetText != address.description
        readsEveryEvent = !quiet || reportsOutstanding
        expectsManyRepliers = broadcast || address.isMulticast
    }

    // MARK: - Text, as iputils prints it

    /// "PING 198.18.0.2 (198.18.0.2) 56(84) bytes of data." / "PING ::1(::1) 56 data bytes";
    /// for a name, iputils' ping6_run prints the address as its replies name it:
    /// "PING db.test(db.test (2001:db8::1)) 56 data bytes".
    func header(source: (address: IPAddress, interface: String)?) -> String {
        let from = source.map { " from \($0.address) \($0.interface):" } ?? ""
        switch address.family {
        case .ipv4:
            let total = payloadSize + ICMPCodec.headerLength + ICMPv4().ipHeaderLength
            return "PING \(targetText) (\(address))\(from) \(payloadSize)(\(total)) bytes of data.\n"
        case .ipv6:
            return "PING \(targetText)(\(name(of: address)))\(from) \(payloadSize) data bytes\n"
        }
    }

    /// `realtime`: now, read only when the lines show it (-D).
    func text(_ event: PingEvent, realtime: RealtimeInstant?) -> String {
        if reportsOutstanding { track(event) }
        if quiet { return "" }
        let stamp = showsTimestamps ? realtime.map(Self.timestamp) ?? "" : ""
        switch event {
        case .sent(let probe, _):
            var text = ""
            // iputils -O: before each new probe, the previous one if it has no reply yet.
            let previous = probe.sequence &- 1
            if reportsOutstanding && !flood && probe.sequence != 1 && !isAnswered(previous) {
                text += stamp + "no answer yet for icmp_seq=\(previous)\n"
            }
            if flood { text += "." }
            return text
        case .reply(let reply):
            if flood { return reply.corrupted ? "\u{8}C" : "\u{8} \u{8}" }
            var line = stamp + "\(reply.bytes) bytes from \(name(of: reply.from)): icmp_seq=\(reply.sequence)"
            if let ttl = reply.ttl { line += " ttl=\(ttl)" }
            if reply.bytes < payloadSize + ICMPCodec.headerLength { return line + " (truncated)\n" }
            if showsTimes { line += " time=" + Self.milliseconds(reply.roundTrip) }
            if reply.duplicate { line += " (DUP!)" }
            if reply.corrupted { line += " (BAD CHECKSUM!)" }
            if reply.differentAddress && !expectsManyRepliers { line += " (DIFFERENT ADDRESS!)" }
            return line + "\n"
        case .icmpError(let error):
            if flood { return "\u{8}E" }
            return stamp + "From \(name(of: error.from)) icmp_seq=\(error.sequence) \(error.text)\n"
        case .finished, .started, .failed, .timedOut, .unexpected, .sendFailed, .localError, .statusRequested:
            return ""
        }
    }

    private func track(_ event: PingEvent) {
        switch event {
        case .sent(let probe, _), .sendFailed(let probe, _):
            let sequence = probe.sequence
            answered[Int(sequence >> 6)] &= ~(1 << UInt64(sequence & 63)) // a new turn of the sequence space
        case .reply(let reply) where !reply.corrupted:
            answered[Int(reply.sequence >> 6)] |= 1 << UInt64(reply.sequence & 63)
        default:
            break
        }
    }

    private func isAnswered(_ sequence: UInt16) -> Bool {
        answered[Int(sequence >> 6)] & (1 << UInt64(sequence & 63)) != 0
    }

    /// Whether `diagnostic` has a line for the event: asked first, per event, as a flood's
    /// replies and probes never have one.
    static func hasDiagnostic(_ event: PingEvent) -> Bool {
        switch event {
        case .sendFailed, .localError, .failed, .statusRequested: true
        default: false
        }
    }

    /// Lines iputils writes to stderr (sendmsg refusals, local errors).
    func diagnostic(_ event: PingEvent) -> String? {
        switch event {
        case .sendFailed(let probe, let error):
            let why = AccessRefusal.describe(error, toward: address, broadcastOption: PingOptions.Option.broadcast.spelled)
            return "reach: icmp_seq=\(probe.sequence): sendto: \(why)\n"
        case .localError(let probe, let error, let info):
            if error == .messageTooLong { return "reach: local error: message too long, mtu=\(info)\n" }
            return "reach: icmp_seq=\(probe.sequence): local error: \(error)\n"
        case .failed(let why):
            return "reach: \(why)\n"
        case .statusRequested(let statistics):
            return status(statistics.first ?? PingStatistics())
        default:
            return nil
        }
    }

    /// iputils ping_common.c status(), printed on SIGQUIT: "\r3/3 packets, 0% loss,
    /// min/avg/ewma/max = 0.040/0.051/0.049/0.066 ms" (loss in whole percent).
    func status(_ stats: PingStatistics) -> String {
        let loss = stats.transmitted > 0 ? (stats.transmitted - stats.received) * 100 / stats.transmitted : 0
        var line = "\r\(stats.received)/\(stats.transmitted) packets, \(loss)% loss"
        if stats.received > 0 && stats.timed > 0 && showsTimes {
            line +=
                ", min/avg/ewma/max = " + Self.decimals(stats.minimumMicroseconds) + "/" + Self.decimals(stats.averageMicroseconds)
                + "/" + Self.decimals(stats.ewmaTimesEight / 8) + "/" + Self.decimals(stats.maximumMicroseconds) + " ms"
        }
        return line + "\n"
    }

    private func name(of from: IPAddress) -> String {
        // No reverse lookups (they would query DNS for every line): the name given for the
        // target, the number for anyone else.
        targetIsName && from.bytes == address.bytes ? "\(targetText) (\(from))" : from.description
    }

    /// iputils ping_common.c finish(): the statistics block.
    func statistics(_ engine: PingEngine, intervalIsZero: Bool) -> String {
        let stats = engine.statistics.first ?? PingStatistics()
        var text = "\n--- \(targetText) ping statistics ---\n"
        text += "\(stats.transmitted) packets transmitted, \(stats.received) received"
        if stats.duplicates > 0 { text += ", +\(stats.duplicates) duplicates" }
        if stats.corrupted > 0 { text += ", +\(stats.corrupted) corrupted" }
        if stats.errors > 0 { text += ", +\(stats.errors) errors" }
        if stats.transmitted > 0 {
            text += ", \(Self.shortest(stats.lossPercent))% packet loss, time \(engine.elapsedMilliseconds)ms"
        }
        text += "\n"
        var comma = ""
        if stats.received > 0 && stats.timed > 0 && showsTimes {
            // Concatenated, not joined: `joined(separator:)` is costly at its first use (a start-up cost).
            text +=
                "rtt min/avg/max/mdev = " + Self.decimals(stats.minimumMicroseconds) + "/"
                + Self.decimals(stats.averageMicroseconds) + "/" + Self.decimals(stats.maximumMicroseconds) + "/"
                + Self.decimals(stats.mdevMicroseconds) + " ms"
            comma = ", "
        }
        if stats.pipe > 1 {
            text += "\(comma)pipe \(stats.pipe)"
            comma = ", "
        }
        if stats.received > 0 && (intervalIsZero || flood) && stats.transmitted > 1 {
            let gap = engine.elapsed.microseconds / Int64(stats.transmitted - 1)
            text += "\(comma)ipg/ewma \(Self.decimals(gap))/\(Self.decimals(stats.ewmaTimesEight / 8)) ms"
        }
        if showsPercentiles && stats.received > 0 && stats.timed > 0 && showsTimes {
            text += "\nrtt p50/p90/p99 = " + Self.percentiles(stats).map { Self.decimals($0) }.joined(separator: "/") + " ms"
        }
        return text + "\n"
    }

    /// The 50th, 90th and 99th percentiles in whole microseconds, held within iputils' min and
    /// max (whole microseconds too).
    static func percentiles(_ stats: PingStatistics) -> [Int64] {
        let (minimum, maximum) = (stats.minimumMicroseconds, stats.maximumMicroseconds)
        return [0.5, 0.9, 0.99].map { q in
            let span = stats.percentile(q, minimum: .nanoseconds(minimum * 1000), maximum: .nanoseconds(maximum * 1000))
            return span?.microseconds ?? minimum
        }
    }

    /// Microseconds as milliseconds with three decimals (MillisecondText, iputils' "%ld.%03ld").
    private static func decimals(_ micro: Int64) -> String {
        MillisecondText.threeDecimals(microseconds: micro)
    }

    /// iputils' reply time: 3 decimals below 1 ms, 2 below 10 ms, 1 below 100 ms, then none
    /// (ping_common.c, from whole microseconds).
    static func milliseconds(_ roundTrip: TimeSpan) -> String {
        let micro = roundTrip.microseconds
        if micro >= 100_000 - 50 { return "\((micro + 500) / 1000) ms" }
        if micro >= 10_000 - 5 { return "\((micro + 50) / 1000).\(((micro + 50) % 1000) / 100) ms" }
        if micro >= 1000 {
            let hundredths = ((micro + 5) % 1000) / 10
            return "\((micro + 5) / 1000)." + (hundredths < 10 ? "0" : "") + "\(hundredths) ms"
        }
        return Self.decimals(micro) + " ms"
    }

    /// printf "%g" (iputils prints the loss so: 0, 33.3333, 100): six significant digits,
    /// trailing zeros dropped, an exponent below 1e-4 or from 1e6. Written out rather than
    /// through vsnprintf, whose CVarArg boxing is a start-up cost.
    static func shortest(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        if value == 0 { return value.sign == .minus ? "-0" : "0" }
        let sign = value < 0 ? "-" : ""
        let magnitude = abs(value)
        // The decimal exponent of the value once rounded to six significant digits.
        var exponent = 0
        var scaled = magnitude
        while scaled >= 10 {
            scaled /= 10
            exponent += 1
        }
        while scaled < 1 {
            scaled *= 10
            exponent -= 1
        }
        var digits = scaledRounded(magnitude, by: 5 - exponent)
        if digits >= 1_000_000 {
            exponent += 1
            digits = scaledRounded(magnitude, by: 5 - exponent)
        }
        var text = String(Int64(digits)) // six digits: d ddddd
        let scientific = exponent < -4 || exponent >= 6
        let point = scientific ? 1 : exponent + 1 // digits before the decimal point
        if point <= 0 {
            text = "0." + String(repeating: "0", count: -point) + text
        } else if point < text.count {
            text.insert(".", at: text.index(text.startIndex, offsetBy: point))
        } else {
            text += String(repeating: "0", count: point - text.count)
        }
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        guard scientific else { return sign + text }
        let power = String(abs(exponent))
        return sign + text + (exponent < 0 ? "e-" : "e+") + (power.count < 2 ? "0" : "") + power
    }

    /// `magnitude × 10^k` rounded half to even, exactly for a value that is a Float (the
    /// loss always is: iputils computes it as a float), as printf rounds the exact value.
    private static func scaledRounded(_ magnitude: Double, by k: Int) -> Double {
        let single = Float(magnitude)
        guard (0...11).contains(k), Double(single) == magnitude, single.isNormal else {
            return (magnitude * power10(k)).rounded(.toNearestOrEven)
        }
        let mantissa = UInt64(single.significandBitPattern) | (1 << 23) // value = mantissa × 2^shift
        let shift = Int(single.exponent) - 23
        var product = mantissa
        for _ in 0..<k { product *= 10 } // < 2^24 × 10^11 < 2^61
        if shift >= 0 { return Double(product) * power2(shift) }
        let bits = -shift
        if bits >= 62 { return 0 }
        let quotient = product >> UInt64(bits)
        let remainder = product & ((1 << UInt64(bits)) - 1)
        let half = UInt64(1) << UInt64(bits - 1)
        let roundsUp = remainder > half || (remainder == half && quotient & 1 == 1)
        return Double(quotient + (roundsUp ? 1 : 0))
    }

    private static func power2(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<exponent { result *= 2 }
        return result
    }

    private static func power10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<abs(exponent) { result *= 10 }
        return exponent < 0 ? 1 / result : result
    }

    /// iputils -D: "[1700000000.123456] ".
    static func timestamp(_ realtime: RealtimeInstant) -> String {
        let micro = String((realtime.nanoseconds / 1000) % 1_000_000)
        return "[\(realtime.seconds)." + String(repeating: "0", count: 6 - micro.count) + micro + "] "
    }

    // MARK: - JSON

    /// One shape with `reach ping A B`'s events: each names its `target` and `address`, and a
    /// probe's event its `seq` (from 1, iputils' icmp_seq) and `index` (from 0, fping's [0]).
    func json(_ event: PingEvent) -> JSONValue? {
        func object(_ name: String, _ fields: [(String, JSONValue)]) -> JSONValue {
            .object(
                [("schema", .int(jsonSchemaVersion)), ("command", .string("ping")), ("event", .string(name)),
                 ("target", .string(targetText)), ("address", .string(address.description))] + fields)
        }
        switch event {
        case .started(let start):
            return object(
                "start",
                [("family", .string(start.address.family.rawValue)), ("identifier", .int(Int64(start.identifier))),
                 ("socket", .string(start.socketKind.rawValue)), ("payload_bytes", .int(Int64(payloadSize)))])
        case .sent(let probe, let bytes):
            return object("sent", Self.probeKeys(sequence: Int(probe.sequence)) + [("bytes", .int(Int64(bytes)))])
        case .reply(let reply):
            return object(
                "reply",
                Self.probeKeys(sequence: Int(reply.sequence)) + [
                    ("from", .string(reply.from.description)), ("ttl", reply.ttl.map { .int(Int64($0)) } ?? .null),
                    ("bytes", .int(Int64(reply.bytes))), ("rtt_ms", .milliseconds(reply.roundTrip)),
                    ("duplicate", .bool(reply.duplicate)), ("late", .bool(reply.late)),
                    ("corrupted", .bool(reply.corrupted)), ("different_address", .bool(reply.differentAddress)),
                ])
        case .timedOut(let probe):
            return object("timeout", Self.probeKeys(sequence: Int(probe.sequence)))
        case .icmpError(let error):
            return object(
                "icmp_error",
                Self.probeKeys(sequence: Int(error.sequence)) + [
                    ("from", .string(error.from.description)), ("icmp_type", .int(Int64(error.type.rawValue))),
                    ("icmp_code", .int(Int64(error.code))), ("text", .string(error.text)),
                ])
        case .sendFailed(let probe, let error):
            return object("send_failed", Self.probeKeys(sequence: Int(probe.sequence)) + Self.refusalKeys(error, toward: address))
        case .localError(let probe, let error, let info):
            return object(
                "local_error",
                Self.probeKeys(sequence: Int(probe.sequence)) + [
                    ("errno", .int(Int64(error.rawValue))), ("error", .string(error.description)), ("info", .int(Int64(info))),
                ])
        case .unexpected(let packet):
            return object(
                "unexpected",
                [("from", .optional(packet.from?.description)), ("icmp_type", packet.type.map { .int(Int64($0.rawValue)) } ?? .null),
                 ("icmp_code", packet.code.map { .int(Int64($0)) } ?? .null), ("reason", .string(packet.reason))])
        case .failed(let why):
            return object("failed", [("error", .string(why))])
        case .finished, .statusRequested:
            return nil
        }
    }

    /// A probe's number both ways: `seq` from 1 (iputils' icmp_seq, 16 bits), `index` from 0
    /// (fping's `[0]`).
    static func probeKeys(sequence: Int) -> [(String, JSONValue)] {
        [("seq", .int(Int64(sequence))), ("index", .int(Int64((sequence + 0xFFFF) & 0xFFFF)))]
    }

    /// A name that did not resolve: no `address`, the resolver's words.
    static func unresolved(_ name: String, why: String) -> JSONValue {
        .object([
            ("schema", .int(jsonSchemaVersion)), ("command", .string("ping")), ("event", .string("unresolved")),
            ("target", .string(name)), ("error", .string(why)),
        ])
    }

    /// A refused send: the errno, its text, and the route type behind it (or null; EACCES
    /// is a prohibited route only when the route says so).
    static func refusalKeys(_ error: Errno, toward destination: IPAddress) -> [(String, JSONValue)] {
        [("errno", .int(Int64(error.rawValue))), ("error", .string(error.description)),
         ("reason", .optional(AccessRefusal.reason(for: error, toward: destination)?.rawValue))]
    }

    /// `{"p50": …, "p90": …, "p99": …}`, the summary's `percentiles` in both models.
    static func percentilesObject(_ values: [JSONValue]) -> JSONValue {
        .object(zip(["p50", "p90", "p99"], values).map { ($0, $1) })
    }

    func summary(_ engine: PingEngine, status: ExitStatus) -> JSONValue {
        let stats = engine.statistics.first ?? PingStatistics()
        let rtt: JSONValue =
            stats.received > 0 && stats.timed > 0
            ? .object([
                ("min", .number(Double(stats.minimumMicroseconds) / 1000)),
                ("avg", .number(Double(stats.averageMicroseconds) / 1000)),
                ("max", .number(Double(stats.maximumMicroseconds) / 1000)),
                ("mdev", .number(Double(stats.mdevMicroseconds) / 1000)),
                ("percentiles", Self.percentilesObject(Self.percentiles(stats).map { .number(Double($0) / 1000) })),
            ])
            : .null
        return .object([
            ("schema", .int(jsonSchemaVersion)), ("command", .string("ping")), ("event", .string("summary")),
            ("target", .string(targetText)), ("address", .string(address.description)),
            ("transmitted", .int(Int64(stats.transmitted))), ("received", .int(Int64(stats.received))),
            ("duplicates", .int(Int64(stats.duplicates))), ("corrupted", .int(Int64(stats.corrupted))),
            ("errors", .int(Int64(stats.errors))), ("loss_percent", .number(stats.lossPercent)),
            ("time_ms", .int(engine.elapsedMilliseconds)), ("rtt_ms", rtt),
            ("exit_status", .int(Int64(status.rawValue))),
        ])
    }
}

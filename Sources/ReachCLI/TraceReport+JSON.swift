import ReachCore
import ReachSystem

extension TraceReport {
    /// `reach trace --report --json` (docs/JSON.md, "reach trace --json"): the hops mtr's
    /// report lists, each with what mtr's JSON gives and what it does not (every address
    /// that answered, the ICMP type and code, the extensions).
    func json(target: String) -> JSONValue {
        .object([
            ("schema", .int(1)), ("command", .string("trace")), ("target", .string(target)),
            ("destination", .string(destination.description)), ("rounds", .int(Int64(rounds))),
            ("reached", .bool(reachedDestination)), ("hops", .array(listedHops.map(\.json))),
        ])
    }
}

extension TraceHopStatistics {
    var json: JSONValue {
        let answered = received > 0
        func milliseconds(_ microseconds: Int64) -> JSONValue { .number(Double(microseconds) / 1000) }
        let roundTrip: JSONValue =
            answered
            ? .object([
                ("last", milliseconds(lastMicroseconds)), ("avg", milliseconds(averageMicroseconds)),
                ("best", milliseconds(bestMicroseconds)), ("worst", milliseconds(worstMicroseconds)),
                ("stdev", milliseconds(standardDeviationMicroseconds)),
            ]) : .null
        return .object([
            ("ttl", .int(Int64(hop))), ("address", .optional(latest?.description)),
            ("addresses", .array(responders.map { .string($0.description) })), ("sent", .int(Int64(sent))),
            ("received", .int(Int64(received))), ("loss_percent", .number(Double(lossThousandths) / 1000)),
            ("rtt_ms", roundTrip), ("icmp_type", icmpType.map { .int(Int64($0)) } ?? .null),
            ("icmp_code", icmpCode.map { .int(Int64($0)) } ?? .null), ("extensions", ICMPExtensions(objects: extensions).json),
        ])
    }
}

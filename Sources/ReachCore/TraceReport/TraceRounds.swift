import ReachSystem

/// mtr's rounds over traceroute's engine (`reach trace --report`, the live table, the
/// exporter): each round one pass of one probe per hop, rounds started `interval` apart,
/// every probe counted into a TraceReport for its hop, up to the hop the pass ended at
/// (traceroute's -N sends later hops at once; their answers are not mtr's to count).
public struct TraceRounds {
    /// Rounds to run; nil: until `afterRound` says stop or the wait is interrupted.
    public var count: Int?
    public var interval: TimeSpan

    public init(count: Int?, interval: TimeSpan) {
        self.count = count
        self.interval = interval
    }

    /// Runs the rounds. `engine` must send one probe per hop (TraceSettings.probesPerHop 1);
    /// `transport` is its transport, waited on between rounds (a late answer to the round
    /// before is dropped there, as the engine drops it). `afterRound` sees the report after
    /// each round and answers whether to go on. A Ctrl-C (the transport's wait interrupted)
    /// ends the run with the report so far.
    public func run(
        engine: TraceEngine, transport: TraceTransport, destination: IPAddress, clock: () -> MonotonicInstant,
        deadline: MonotonicInstant? = nil, afterRound: (TraceReport) -> Bool = { _ in true }
    ) throws -> TraceReport {
        var report = TraceReport(destination: destination, firstHop: engine.settings.firstHop)
        while count.map({ report.rounds < $0 }) ?? true {
            let start = clock()
            let echoReply = engine.settings.method == .icmp ? icmpFamily(for: engine.family).echoReply.rawValue : nil
            let result = try engine.pass(deadline: deadline) { Self.count($0, into: &report, echoReply: echoReply) }
            report.rounds += 1
            if result.stop == .cutShort || !afterRound(report) { break }
            guard count.map({ report.rounds < $0 }) ?? true else { break }
            let next = [start + interval, deadline].compactMap { $0 }.min() ?? start + interval
            while clock() < next {
                guard try transport.wait(until: next, { _ in }) else { return report }
            }
            if let deadline, clock() >= deadline { break }
        }
        return report
    }

    /// A settled probe: sent with its hop limit, and its answer if one came. A refused send
    /// settles later as an unanswered probe, and is counted then. `echoReply`: the type the
    /// destination's own answer is, for ICMP probes (the engine names no type for it).
    static func count(_ event: TraceEvent, into report: inout TraceReport, echoReply: UInt8? = nil) {
        guard case .probe(let outcome) = event else { return }
        report[outcome.hop].recordSent()
        guard var answer = outcome.answer else { return }
        if answer.icmpType == nil, answer.verdict == .destination, let echoReply {
            answer.icmpType = echoReply
            answer.icmpCode = 0
        }
        report[outcome.hop].record(answer)
    }
}

extension TraceHopStatistics {
    /// An answer as the engine hands it on.
    public mutating func record(_ answer: TraceAnswer) {
        var ends = false
        if case .stopped = answer.verdict { ends = true }
        record(
            responder: answer.responder, roundTrip: answer.roundTrip, icmpType: answer.icmpType, icmpCode: answer.icmpCode,
            extensions: answer.extensions, endsTrace: ends)
    }
}

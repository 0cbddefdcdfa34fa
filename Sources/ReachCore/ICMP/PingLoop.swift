import ReachSystem

/// Drives the ping engine over a transport and a clock: sends each probe when it may go,
/// feeds in what arrives, advances time, and hands every event to `handle` in order. One
/// loop for one target or many, for the CLI (on the main thread, for precise timing),
/// `Pinger` (on its own thread) and `ICMPEchoProbe`; a test runs it with a fake transport
/// and a manual clock.
public struct PingLoop {
    public var engine: PingEngine
    public let transport: PingTransport
    public let clock: PingClock

    public init(engine: PingEngine, transport: PingTransport, clock: PingClock) {
        self.engine = engine
        self.transport = transport
        self.clock = clock
    }

    /// Runs the engine to its end; `engine` holds the statistics afterwards.
    public mutating func run(_ handle: (PingEvent) -> Void) throws {
        try run(reportEvery: nil) { event, _ in handle(event) }
    }

    /// Runs until the engine finishes; an interruption ends the run as iputils and fping end
    /// on SIGINT, a status request (SIGQUIT) comes as `.statusRequested`. Each event comes
    /// with the engine as it is after it. With `reportEvery`, `report` is called each time
    /// that much more time has passed (fping -Q: main_loop's next_report_time).
    public mutating func run(
        reportEvery: TimeSpan?, report: (PingEngine) -> Void = { _ in }, _ handle: (PingEvent, PingEngine) -> Void
    ) throws {
        // Held in locals for the whole run: read from `self` (inout) in the loop, each was
        // retained and released per echo.
        let clock = self.clock
        let transport = self.transport
        var nextReport = reportEvery.map { clock.monotonicNow + $0 }
        // When a datagram was just read, its receipt time stands for now (a few microseconds
        // old at most, and never ahead): a clock read per echo spared in a flood. Anything
        // found due late for it is found at the next turn, on a fresh reading.
        var receivedAt: MonotonicInstant?
        while !engine.isFinished {
            let now = receivedAt ?? clock.monotonicNow
            receivedAt = nil
            for event in engine.advance(now: now) { handle(event, engine) }
            if engine.isFinished { break }
            // After a send, straight to waiting even when the next probe is due at once (the
            // wait returns at once): replies are read between any two sends, so a burst cannot
            // overflow the receive buffer.
            if let probe = engine.nextProbe(now: now) { try send(probe, through: transport, clock: clock, handle) }
            var wake = engine.nextWakeTime()
            if let report = nextReport { wake = min(wake ?? report, report) }
            // Inputs are handed over one by one, borrowed: no array or copy per echo.
            try transport.wait(until: wake) { family, input in
                switch input {
                case .datagram(let datagram):
                    receivedAt = datagram.monotonicTime
                    if let event = engine.receive(datagram, family: family) { handle(event, engine) }
                case .queuedError(let queued):
                    if let event = engine.receive(queued, family: family) { handle(event, engine) }
                case .interrupted:
                    for event in engine.stop() { handle(event, engine) }
                case .statusRequested:
                    handle(.statusRequested(engine.statistics), engine)
                }
            }
            if let every = reportEvery, let due = nextReport, !engine.isFinished {
                let now = clock.monotonicNow
                if now >= due {
                    report(engine)
                    var next = due
                    while next <= now { next += every }
                    nextReport = next
                }
            }
        }
    }

    private mutating func send(
        _ probe: PingEngine.ProbePacket, through transport: PingTransport, clock: PingClock, _ handle: (PingEvent, PingEngine) -> Void
    ) throws {
        var realtime = RealtimeInstant(nanoseconds: 0)
        var monotonic = MonotonicInstant(nanoseconds: 0)
        let failure = try transport.send(probe.bytes, to: probe.address) {
            monotonic = clock.monotonicNow
            realtime = clock.realtimeNow
        }
        if let failure {
            handle(engine.didFailToSend(probe, error: failure, monotonic: monotonic), engine)
        } else {
            handle(engine.didSend(probe, realtime: realtime, monotonic: monotonic), engine)
        }
    }
}

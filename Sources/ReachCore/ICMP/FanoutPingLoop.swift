import ReachSystem

/// Drives a `FanoutPingEngine` over a transport and a clock: sends each probe when it may
/// go, feeds in what arrives, advances time, and hands every event to `handle` in order.
public struct FanoutPingLoop {
    public var engine: FanoutPingEngine
    public let transport: PingTransport
    public let clock: PingClock

    public init(engine: FanoutPingEngine, transport: PingTransport, clock: PingClock) {
        self.engine = engine
        self.transport = transport
        self.clock = clock
    }

    /// Runs until the engine finishes; an interruption ends the run as fping ends on SIGINT
    /// (what was counted so far is the result). Each event comes with the engine as it is
    /// after it; a status request (SIGQUIT) calls `status`. With `reportEvery`, `report` is
    /// called each time that much more time has passed (fping -Q: main_loop's next_report_time).
    public mutating func run(
        reportEvery: TimeSpan? = nil, report: (FanoutPingEngine) -> Void = { _ in }, status: (FanoutPingEngine) -> Void = { _ in },
        _ handle: (FanoutPingEvent, FanoutPingEngine) -> Void
    ) throws {
        let clock = self.clock
        let transport = self.transport
        var nextReport = reportEvery.map { clock.monotonicNow + $0 }
        while !engine.isFinished {
            let now = clock.monotonicNow
            for event in engine.advance(now: now) { handle(event, engine) }
            if engine.isFinished { break }
            if let probe = engine.nextProbe(now: now) {
                var realtime = RealtimeInstant(nanoseconds: 0)
                var monotonic = MonotonicInstant(nanoseconds: 0)
                let failure = try transport.send(probe.bytes, to: probe.address) {
                    monotonic = clock.monotonicNow
                    realtime = clock.realtimeNow
                }
                if let failure {
                    let event = engine.didFailToSend(probe, error: failure, monotonic: monotonic)
                    handle(event, engine)
                } else {
                    engine.didSend(probe, realtime: realtime, monotonic: monotonic)
                }
                // Then a wait even when the next probe is due at once (a zero timeout): replies
                // are read between any two sends, so a burst cannot overflow the receive buffer.
            }
            let wake = [engine.nextWakeTime(), nextReport].compactMap { $0 }.min()
            try transport.wait(until: wake) { family, input in
                switch input {
                case .datagram(let datagram):
                    if let event = engine.receive(datagram, family: family) { handle(event, engine) }
                case .queuedError(let queued):
                    if let event = engine.receive(queued, family: family) { handle(event, engine) }
                case .interrupted:
                    for event in engine.stop() { handle(event, engine) }
                case .statusRequested:
                    status(engine)
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
}

import ReachSystem

/// Drives a `PingEngine` over a transport and a clock: sends probes when due, feeds in
/// what arrives, advances time, and hands every event to `handle` in order. The same
/// loop serves the CLI (on the main thread, for precise timing) and `Pinger` (on its own
/// thread); a test runs it with a fake transport and a manual clock.
public struct PingLoop {
    public var engine: PingEngine
    public let transport: PingTransport
    public let clock: PingClock

    public init(engine: PingEngine, transport: PingTransport, clock: PingClock) {
        self.engine = engine
        self.transport = transport
        self.clock = clock
    }

    /// Runs until the engine finishes; an interruption ends the run with its statistics,
    /// as iputils does on SIGINT. `engine` holds the statistics afterwards.
    public mutating func run(_ handle: (PingEvent) -> Void) throws {
        // Held in locals for the whole run: read from `self` (inout) in the loop, each was
        // retained and released per echo.
        let clock = self.clock
        let transport = self.transport
        let target = engine.target
        // When a datagram was just read, its receipt time stands for now (a few microseconds
        // old at most, and never ahead): a clock read per echo spared in a flood. Anything
        // found due late for it is found at the next turn, on a fresh reading.
        var receivedAt: MonotonicInstant?
        while !engine.isFinished {
            let now = receivedAt ?? clock.monotonicNow
            receivedAt = nil
            for event in engine.advance(now: now) { handle(event) }
            if engine.isFinished { break }
            // After a send, straight to waiting: the reply is what comes next (a probe due at
            // once makes the wait return at once).
            if let probe = engine.nextProbe(now: now) { try send(probe, to: target, through: transport, clock: clock, handle) }
            // Inputs are handed over one by one, borrowed: no array or copy per echo.
            try transport.wait(until: engine.nextWakeTime()) { _, input in
                switch input {
                case .datagram(let datagram):
                    receivedAt = datagram.monotonicTime
                    handle(engine.receive(datagram))
                case .queuedError(let queued):
                    handle(engine.receive(queued))
                case .interrupted:
                    for event in engine.stop() { handle(event) }
                case .statusRequested:
                    handle(.statusRequested(engine.statistics))
                }
            }
        }
    }

    private mutating func send(
        _ probe: PingEngine.ProbePacket, to target: IPAddress, through transport: PingTransport, clock: PingClock,
        _ handle: (PingEvent) -> Void
    ) throws {
        var realtime = RealtimeInstant(nanoseconds: 0)
        var monotonic = MonotonicInstant(nanoseconds: 0)
        let failure = try transport.send(probe.bytes, to: target) {
            monotonic = clock.monotonicNow
            realtime = clock.realtimeNow
        }
        // One call per case: `didSend`, inlined, hands over a `.sent` known as such, with
        // nothing to destroy after.
        if let failure {
            handle(engine.didFailToSend(probe, error: failure, monotonic: monotonic))
        } else {
            handle(engine.didSend(probe, realtime: realtime, monotonic: monotonic))
        }
    }
}

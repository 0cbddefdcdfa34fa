import ReachSystem

/// One ICMP socket per family, as a fan-out run uses them: `ICMPSocketGroup` (ReachSystem)
/// in a real run, a fake in tests.
public protocol FanoutPingTransport: AnyObject {
    /// Sends one probe through the socket of the target's family; a refusal that is a
    /// verdict about the path is returned, any other failure thrown.
    func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) throws -> Errno?
    /// Waits until input arrives or `deadline` passes; each input with its socket's family.
    func wait(until deadline: Int64?, _ deliver: (AddressFamily, TransportInput) -> Void) throws
}

extension ICMPSocketGroup: FanoutPingTransport {}

/// Drives a `FanoutPingEngine` over a transport and a clock: sends each probe when it may
/// go, feeds in what arrives, advances time, and hands every event to `handle` in order.
public struct FanoutPingLoop {
    public var engine: FanoutPingEngine
    public let transport: FanoutPingTransport
    public let clock: PingClock

    public init(engine: FanoutPingEngine, transport: FanoutPingTransport, clock: PingClock) {
        self.engine = engine
        self.transport = transport
        self.clock = clock
    }

    /// Runs until the engine finishes; an interruption ends the run as fping ends on SIGINT
    /// (what was counted so far is the result). Each event comes with the engine as it is
    /// after it; a status request (SIGQUIT) calls `status`. With `reportEvery`, `report` is
    /// called each time that much more time has passed (fping -Q: main_loop's next_report_time).
    public mutating func run(
        reportEvery: Int64? = nil, report: (FanoutPingEngine) -> Void = { _ in }, status: (FanoutPingEngine) -> Void = { _ in },
        _ handle: (FanoutPingEvent, FanoutPingEngine) -> Void
    ) throws {
        let clock = self.clock
        let transport = self.transport
        var nextReport = reportEvery.map { clock.monotonicNanoseconds + $0 }
        while !engine.isFinished {
            let now = clock.monotonicNanoseconds
            for event in engine.advance(now: now) { handle(event, engine) }
            if engine.isFinished { break }
            if let probe = engine.nextProbe(now: now) {
                var realtime: Int64 = 0
                var monotonic: Int64 = 0
                let failure = try transport.send(probe.bytes, to: probe.address) {
                    monotonic = clock.monotonicNanoseconds
                    realtime = clock.realtimeNanoseconds
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
                let now = clock.monotonicNanoseconds
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

/// The two clocks a pinger reads: CLOCK_MONOTONIC for scheduling, CLOCK_REALTIME for
/// the send time that the kernel's receive timestamp (also CLOCK_REALTIME) is taken against.
public protocol PingClock: AnyObject {
    var monotonicNanoseconds: Int64 { get }
    var realtimeNanoseconds: Int64 { get }
}

/// What a transport hands back while waiting.
public enum TransportInput: Sendable {
    case datagram(ReceivedDatagram)
    case queuedError(QueuedError)
    /// `interrupt()` was called (Ctrl-C, stop).
    case interrupted
}

/// An ICMP socket as the loop uses it. Only `ICMPSocket` makes syscalls; tests use a fake.
public protocol PingTransport: AnyObject {
    var kind: ICMPSocketKind { get }
    /// The identifier replies carry (the kernel's on a datagram socket).
    var identifier: UInt16 { get }
    /// Sends one probe; `beforeSend` runs right before sendto (it reads the send time).
    /// A refusal by sendto is returned, not thrown: it is a verdict about the path.
    func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) -> Errno?
    /// Waits until input arrives or `deadline` (CLOCK_MONOTONIC; nil waits for input) passes,
    /// and returns what arrived (empty when the time is up).
    func wait(until deadline: Int64?) throws -> [TransportInput]
}

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

    /// Runs until the engine finishes or `handle` returns false; an interruption ends the
    /// run with its statistics, as iputils does on SIGINT.
    public mutating func run(_ handle: (PingEvent, PingEngine) -> Void) throws {
        while !engine.isFinished {
            let now = clock.monotonicNanoseconds
            for event in engine.advance(now: now) { handle(event, engine) }
            if engine.isFinished { break }
            if var probe = engine.nextProbe(now: now) {
                send(&probe, handle)
                continue
            }
            for input in try transport.wait(until: engine.nextWakeTime()) {
                switch input {
                case .datagram(let datagram):
                    for event in engine.receive(datagram) { handle(event, engine) }
                case .queuedError(let queued):
                    for event in engine.receive(queued) { handle(event, engine) }
                case .interrupted:
                    for event in engine.stop() { handle(event, engine) }
                }
            }
        }
    }

    private mutating func send(_ probe: inout PingEngine.ProbePacket, _ handle: (PingEvent, PingEngine) -> Void) {
        var realtime: Int64 = 0
        var monotonic: Int64 = 0
        let clock = self.clock
        let failure = transport.send(probe.bytes, to: engine.target) {
            monotonic = clock.monotonicNanoseconds
            realtime = clock.realtimeNanoseconds
        }
        let event: PingEvent
        if let failure {
            event = engine.didFailToSend(probe, error: failure, monotonic: monotonic)
        } else {
            event = engine.didSend(probe, realtime: realtime, monotonic: monotonic)
        }
        handle(event, engine)
    }
}

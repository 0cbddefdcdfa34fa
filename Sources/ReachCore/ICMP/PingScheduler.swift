import ReachSystem

/// A ping state machine that `PingLoop` drives, with no sockets and no clocks:
/// `PingEngine` (iputils' model, one target) or `FanoutPingEngine` (fping's, many).
public protocol PingScheduler {
    associatedtype Probe
    associatedtype Event
    var isFinished: Bool { get }
    /// The probe if one is due at `now`; its number is taken.
    mutating func nextProbe(now: MonotonicInstant) -> Probe?
    /// Where the probe goes, and its bytes on the wire.
    func destination(of probe: Probe) -> IPAddress
    func bytes(of probe: Probe) -> [UInt8]
    /// The probe left (`didSend`); `realtime` and `monotonic` were read just before sendto.
    mutating func sent(_ probe: Probe, realtime: RealtimeInstant, monotonic: MonotonicInstant) -> Event?
    /// sendto refused the probe with a verdict about the path.
    mutating func didFailToSend(_ probe: Probe, error: Errno, monotonic: MonotonicInstant) -> Event
    /// A datagram from the socket of `family`; nil when there is nothing to report.
    mutating func receive(_ datagram: ReceivedDatagram, family: AddressFamily) -> Event?
    /// An entry of the error queue of the socket of `family`.
    mutating func receive(_ queued: QueuedError, family: AddressFamily) -> Event?
    /// What time has done by `now`: timeouts, then the end of the run.
    mutating func advance(now: MonotonicInstant) -> [Event]
    /// The next instant anything happens by itself.
    func nextWakeTime() -> MonotonicInstant?
    /// Ends the run now (Ctrl-C).
    mutating func stop() -> [Event]
}

extension PingEngine: PingScheduler {
    public func destination(of probe: ProbePacket) -> IPAddress { target }
    public func bytes(of probe: ProbePacket) -> [UInt8] { probe.bytes }

    @inline(__always)
    public mutating func sent(_ probe: ProbePacket, realtime: RealtimeInstant, monotonic: MonotonicInstant) -> PingEvent? {
        didSend(probe, realtime: realtime, monotonic: monotonic)
    }

    /// One socket, one family: `family` is the target's.
    public mutating func receive(_ datagram: ReceivedDatagram, family: AddressFamily) -> PingEvent? {
        receive(datagram)
    }

    public mutating func receive(_ queued: QueuedError, family: AddressFamily) -> PingEvent? {
        receive(queued)
    }
}

extension FanoutPingEngine: PingScheduler {
    public func destination(of probe: Probe) -> IPAddress { probe.address }
    public func bytes(of probe: Probe) -> [UInt8] { probe.bytes }

    public mutating func sent(_ probe: Probe, realtime: RealtimeInstant, monotonic: MonotonicInstant) -> FanoutPingEvent? {
        didSend(probe, realtime: realtime, monotonic: monotonic)
        return nil
    }
}

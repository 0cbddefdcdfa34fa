import ReachSystem

/// The two clocks a pinger reads: CLOCK_MONOTONIC for scheduling, CLOCK_REALTIME for
/// the send time that the kernel's receive timestamp (also CLOCK_REALTIME) is taken against.
public protocol PingClock: AnyObject {
    var monotonicNow: MonotonicInstant { get }
    var realtimeNow: RealtimeInstant { get }
}

/// ICMP sockets as the ping loop uses them, one per family at most: `ICMPSocket` (one
/// family) or `ICMPSocketGroup` (ReachSystem) in a real run, a fake in tests.
public protocol PingTransport: AnyObject {
    /// The identifier replies of `family` carry (the kernel's on a datagram socket); 0 when
    /// there is no socket of that family.
    func identifier(for family: AddressFamily) -> UInt16
    /// The kind of the family's socket; nil when there is none.
    func kind(for family: AddressFamily) -> ICMPSocketKind?
    /// Sends one probe through the socket of the target's family; `beforeSend` runs right
    /// before sendto (it reads the send time). A refusal that is a verdict about the path
    /// (no route, a firewall's EPERM, ...) is returned; any other failure is thrown.
    func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) throws -> Errno?
    /// Waits until input arrives or `deadline` passes (nil waits for input), and hands each
    /// input that arrived to `deliver` with its socket's family, in order (none when the
    /// time is up).
    func wait(until deadline: MonotonicInstant?, _ deliver: (AddressFamily, TransportInput) -> Void) throws
    /// Makes a `wait` in progress (or the next one) deliver `.interrupted`; safe from any thread.
    func interrupt()
}

extension ICMPSocket: PingTransport {
    public func identifier(for family: AddressFamily) -> UInt16 { family == self.family ? identifier : 0 }
    public func kind(for family: AddressFamily) -> ICMPSocketKind? { family == self.family ? kind : nil }

    public func wait(until deadline: MonotonicInstant?, _ deliver: (AddressFamily, TransportInput) -> Void) throws {
        let family = self.family
        try wait(until: deadline) { deliver(family, $0) }
    }
}

extension ICMPSocketGroup: PingTransport {
    public func kind(for family: AddressFamily) -> ICMPSocketKind? { sockets.first { $0.family == family }?.kind }
}

extension SystemClock: PingClock {}

extension MonotonicInstant {
    /// The engines' "due at once": earlier than any reading of the clock.
    static let atOnce = MonotonicInstant(nanoseconds: .min)
}

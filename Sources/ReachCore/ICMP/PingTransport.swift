import ReachSystem

/// The two clocks a pinger reads: CLOCK_MONOTONIC for scheduling, CLOCK_REALTIME for
/// the send time that the kernel's receive timestamp (also CLOCK_REALTIME) is taken against.
public protocol PingClock: AnyObject {
    var monotonicNanoseconds: Int64 { get }
    var realtimeNanoseconds: Int64 { get }
}

/// An ICMP socket as the loop uses it: `ICMPSocket` (ReachSystem) in a real run, a fake in tests.
public protocol PingTransport: AnyObject {
    var kind: ICMPSocketKind { get }
    /// The identifier replies carry (the kernel's on a datagram socket).
    var identifier: UInt16 { get }
    /// Sends one probe; `beforeSend` runs right before sendto (it reads the send time).
    /// A refusal that is a verdict about the path (no route, a firewall's EPERM, ...) is
    /// returned; any other failure is thrown.
    func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) throws -> Errno?
    /// Waits until input arrives or `deadline` (CLOCK_MONOTONIC; nil waits for input) passes,
    /// and hands each input that arrived to `deliver`, in order (none when the time is up).
    func wait(until deadline: Int64?, _ deliver: (TransportInput) -> Void) throws
    /// Makes a `wait` in progress (or the next one) deliver `.interrupted`; safe from any thread.
    func interrupt()
}

extension ICMPSocket: PingTransport {}

extension SystemClock: PingClock {}

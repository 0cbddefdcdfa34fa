#if canImport(Glibc)
import Glibc
#endif

/// One ICMP socket per address family for a run over many targets (fping's socket4 and
/// socket6): every target's probes and replies go through the socket of its family, told
/// apart by sequence number, so descriptors do not grow with the targets.
public final class ICMPSocketGroup {
    /// The sockets, one per family asked for, in the order asked.
    public let sockets: [ICMPSocket]

    /// Opens a socket for each family (CAP_NET_RAW raised only around what needs it, as
    /// ICMPSocket does); the caller drops capabilities after.
    public init(families: [AddressFamily], options: ICMPSocketOptions) throws {
        precondition(!families.isEmpty, "at least one family")
        var sockets: [ICMPSocket] = []
        for family in families where !sockets.contains(where: { $0.family == family }) {
            sockets.append(try ICMPSocket(family: family, options: options))
        }
        self.sockets = sockets
    }

    public func socket(for family: AddressFamily) -> ICMPSocket? {
        sockets.first { $0.family == family }
    }

    /// The identifier of the family's socket, 0 when there is none.
    public func identifier(for family: AddressFamily) -> UInt16 { socket(for: family)?.identifier ?? 0 }

    /// Sends through the socket of the target's family (see ICMPSocket.send).
    public func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) throws(SystemCallError) -> Errno? {
        guard let socket = socket(for: target.family) else { return .addressFamilyNotSupported }
        return try socket.send(packet, to: target, beforeSend: beforeSend)
    }

    /// The descriptor a SIGINT handler writes to, to interrupt the wait.
    public var interruptionDescriptor: Int32 { sockets[0].interruptionDescriptor }

    public func interrupt() { sockets[0].interrupt() }

    /// Most datagrams read from one socket per wait: what is queued is read at once (fping
    /// reads until nothing is left), without starving the other socket or the clock.
    static let datagramsPerWait = 64

    /// Waits until input arrives on any socket or `deadline` (CLOCK_MONOTONIC nanoseconds;
    /// nil waits for input) passes, and hands each input to `deliver` with its family.
    public func wait(until deadline: Int64?, _ deliver: (AddressFamily, TransportInput) -> Void) throws(SystemCallError) {
        var entries = sockets.map { pollfd(fd: $0.fileDescriptor, events: Int16(POLLIN), revents: 0) }
        entries.append(pollfd(fd: sockets[0].interruptionReadDescriptor, events: Int16(POLLIN), revents: 0))
        let until = deadline.map(MonotonicInstant.init(nanoseconds:))
        _ = try entries.withUnsafeMutableBufferPointer { (set) throws(SystemCallError) in try System.poll(set, until: until) }
        for (socket, entry) in zip(sockets, entries) {
            let family = socket.family
            if entry.revents & Int16(POLLERR) != 0 { socket.drainErrorQueue { deliver(family, $0) } }
            if entry.revents & Int16(POLLIN) != 0 {
                for _ in 0..<Self.datagramsPerWait {
                    guard try socket.receiveDatagram({ deliver(family, $0) }) else { break }
                }
            }
        }
        if entries[sockets.count].revents & Int16(POLLIN) != 0 { try sockets[0].readInterruptions { deliver(sockets[0].family, $0) } }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// One ICMP socket per address family (fping's socket4 and socket6): the one type for it,
/// used by a ping run over many targets (every target's probes and replies go through the
/// socket of its family, told apart by sequence number, so descriptors do not grow with the
/// targets) and by a probe that opens its sockets before it knows which family its host
/// resolves to.
public final class ICMPSocketGroup {
    /// The sockets that opened, one per family asked for, in the order asked.
    public let sockets: [ICMPSocket]
    /// Why a family's socket did not open, for a group that keeps failures.
    private let failures: [(family: AddressFamily, error: any Error)]

    /// Opens a socket for each family (CAP_NET_RAW raised only around what needs it, as
    /// ICMPSocket does) and throws the first failure; the caller drops capabilities after.
    public convenience init(families: [AddressFamily], options: ICMPSocketOptions) throws {
        precondition(!families.isEmpty, "at least one family")
        self.init(keepingFailures: families, options: options)
        if let failure = failures.first { throw failure.error }
    }

    /// Opens a socket for each family and keeps the error of any that does not open, thrown
    /// only when that family's socket is asked for (`socket(for:)`).
    public init(keepingFailures families: [AddressFamily], options: ICMPSocketOptions = ICMPSocketOptions()) {
        var sockets: [ICMPSocket] = []
        var failures: [(family: AddressFamily, error: any Error)] = []
        var asked: [AddressFamily] = []
        for family in families where !asked.contains(family) {
            asked.append(family)
            do {
                sockets.append(try ICMPSocket(family: family, options: options))
            } catch {
                failures.append((family, error))
            }
        }
        self.sockets = sockets
        self.failures = failures
    }

    /// The family's socket; the error it failed with when it did not open.
    public func socket(for family: AddressFamily) throws -> ICMPSocket {
        if let socket = sockets.first(where: { $0.family == family }) { return socket }
        if let failure = failures.first(where: { $0.family == family }) { throw failure.error }
        throw SystemCallError("socket (ICMP, \(family.label), not opened)", .addressFamilyNotSupported)
    }

    /// The identifier of the family's socket, 0 when there is none.
    public func identifier(for family: AddressFamily) -> UInt16 { sockets.first { $0.family == family }?.identifier ?? 0 }

    /// Sends through the socket of the target's family (see ICMPSocket.send).
    public func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) throws(SystemCallError) -> Errno? {
        guard let socket = sockets.first(where: { $0.family == target.family }) else { return .addressFamilyNotSupported }
        return try socket.send(packet, to: target, beforeSend: beforeSend)
    }

    /// The descriptor a SIGINT handler writes to, to interrupt the wait; -1 (a write that
    /// fails harmlessly) when no socket opened.
    public var interruptionDescriptor: FileDescriptor.Number { sockets.first?.interruptionDescriptor ?? .none }

    public func interrupt() { sockets.first?.interrupt() }

    /// Most datagrams read from one socket per wait: what is queued is read at once (fping
    /// reads until nothing is left), without starving the other socket or the clock.
    static let datagramsPerWait = 64

    /// Waits until input arrives on any socket or `deadline` passes (nil waits for input),
    /// and hands each input to `deliver` with its family.
    public func wait(until deadline: MonotonicInstant?, _ deliver: (AddressFamily, TransportInput) -> Void) throws(SystemCallError) {
        guard let first = sockets.first else { throw SystemCallError("poll (no ICMP socket open)", .addressFamilyNotSupported) }
        var entries = sockets.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        entries.append(pollfd(fd: first.interruptionReadDescriptor, events: Int16(POLLIN), revents: 0))
        _ = try entries.withUnsafeMutableBufferPointer { (set) throws(SystemCallError) in try System.poll(set, until: deadline) }
        for (socket, entry) in zip(sockets, entries) {
            let family = socket.family
            if entry.revents & Int16(POLLERR) != 0 { socket.drainErrorQueue { deliver(family, $0) } }
            if entry.revents & Int16(POLLIN) != 0 {
                for _ in 0..<Self.datagramsPerWait {
                    guard try socket.receiveDatagram({ deliver(family, $0) }) else { break }
                }
            }
        }
        if entries[sockets.count].revents & Int16(POLLIN) != 0 { try first.readInterruptions { deliver(first.family, $0) } }
    }
}

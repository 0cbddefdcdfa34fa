import ReachSystem

/// A source of multicast netlink datagrams that never blocks. Only `NetlinkSocket`
/// makes syscalls; tests feed bursts and overruns through a fake.
public protocol NetlinkEventSource: AnyObject {
    /// The next queued datagram; nil when none is queued. Throws a `SystemCallError`
    /// with ENOBUFS when the kernel dropped messages (the listener fell behind).
    func receiveIfQueued() throws -> [UInt8]?
}

extension NetlinkSocket: NetlinkEventSource {}

/// What one drain of the multicast socket found.
public struct NetlinkDrain: Hashable, Sendable {
    public var datagrams = 0
    public var messages = 0
    /// The kernel dropped messages: state must be re-read in full, not patched.
    public var overrun = false
    public init() {}

    /// Anything at all happened that calls for an evaluation.
    public var sawChange: Bool { messages > 0 || overrun }

    /// Reads everything queued, so a burst of changes costs one evaluation, not one per
    /// message. ENOBUFS is noted and reading goes on (netlink(7), BUGS: resynchronise,
    /// never die). A datagram that does not parse still counts as a change. At most
    /// `limit` reads are made, so a kernel that never stops talking cannot starve
    /// the evaluation; the next poll comes back at once for the rest.
    public static func drain(_ source: NetlinkEventSource, limit: Int = 4096) throws -> NetlinkDrain {
        var drain = NetlinkDrain()
        for _ in 0..<limit {
            let datagram: [UInt8]
            do {
                guard let next = try source.receiveIfQueued() else { break }
                datagram = next
            } catch let error as SystemCallError where error.errno == .noBufferSpace {
                drain.overrun = true
                continue
            }
            drain.datagrams += 1
            // A datagram that does not parse still counts as one message, so a change: the evaluation that follows reads the state afresh.
            let messages = (try? NetlinkMessage.parseAll(datagram)) ?? []
            drain.messages += max(1, messages.filter { $0.type != .done && $0.type != .noop }.count)
        }
        return drain
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The events of one descriptor in a poll set (POLLIN, POLLOUT, ... in <poll.h>).
public struct PollEvents: OptionSet, Hashable, Sendable {
    public var rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }
    public static let readable = PollEvents(rawValue: Int16(POLLIN))
    public static let writable = PollEvents(rawValue: Int16(POLLOUT))
    /// Reported whether asked for or not: on a pipe's write end, the reader has gone
    /// (poll(2) sets POLLERR there as soon as the read end closes).
    public static let error = PollEvents(rawValue: Int16(POLLERR))
    public static let hangUp = PollEvents(rawValue: Int16(POLLHUP))
    /// The descriptor is not open.
    public static let invalid = PollEvents(rawValue: Int16(POLLNVAL))
}

/// poll(2) over a few descriptors, for loops that wait on several sources at once.
public enum Poll {
    /// Waits until one of `entries` has an event or `timeout` passes (nil: no limit); the
    /// events that came, one set per entry, in order.
    public static func wait(_ entries: [(descriptor: FileDescriptor.Number, events: PollEvents)], timeout: TimeSpan?)
        throws(SystemCallError) -> [PollEvents]
    {
        var set = entries.map { pollfd(fd: $0.descriptor.rawValue, events: $0.events.rawValue, revents: 0) }
        _ = try set.withUnsafeMutableBufferPointer { (buffer) throws(SystemCallError) in
            try System.poll(buffer, timeoutMilliseconds: milliseconds(timeout))
        }
        return set.map { PollEvents(rawValue: $0.revents) }
    }

    /// Waits for one descriptor (nil `timeout`: until it has an event): its events, empty
    /// when the time ran out.
    public static func wait(_ descriptor: FileDescriptor.Number, for events: PollEvents, timeout: TimeSpan?) throws(SystemCallError)
        -> PollEvents
    {
        var entry = pollfd(fd: descriptor.rawValue, events: events.rawValue, revents: 0)
        _ = try withUnsafeMutablePointer(to: &entry) { (pointer) throws(SystemCallError) in
            try System.poll(UnsafeMutableBufferPointer(start: pointer, count: 1), timeoutMilliseconds: milliseconds(timeout))
        }
        return PollEvents(rawValue: entry.revents)
    }

    /// poll(2)'s timeout argument: whole milliseconds rounded up, or -1 for no limit.
    private static func milliseconds(_ timeout: TimeSpan?) -> Int32 { timeout?.pollTimeout ?? -1 }
}

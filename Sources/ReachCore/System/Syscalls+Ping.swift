#if canImport(Glibc)
import Glibc
#endif
import CReachShims

extension System {
    static func clockNanoseconds(_ clock: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    static var monotonicNanoseconds: Int64 { clockNanoseconds(CLOCK_MONOTONIC) }

    /// Byte-for-byte equality by memcmp: a reply's data is checked against the payload per
    /// echo, where a Swift loop over the bytes costs ten instructions a byte.
    static func bytesEqual(_ lhs: ArraySlice<UInt8>, _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard !rhs.isEmpty else { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in memcmp(left.baseAddress!, right.baseAddress!, right.count) == 0 }
        }
    }

    /// ppoll(2) until `deadline` on CLOCK_MONOTONIC (nil waits for input): nanosecond
    /// waits, where poll(2) would round ping intervals to milliseconds.
    static func poll(_ fds: [(fd: Int32, events: Int16)], until deadline: Int64?) throws -> [Int16] {
        var entries = fds.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
        while true {
            var timeout = timespec()
            if let deadline {
                // The engine says "at once" with Int64.min: no overflow, no negative wait.
                let now = monotonicNanoseconds
                let remaining = deadline <= now ? 0 : deadline - now
                timeout.tv_sec = Int(remaining / 1_000_000_000)
                timeout.tv_nsec = Int(remaining % 1_000_000_000)
            }
            let result = entries.withUnsafeMutableBufferPointer { buffer in
                withUnsafePointer(to: &timeout) { ppoll(buffer.baseAddress, nfds_t(buffer.count), deadline == nil ? nil : $0, nil) }
            }
            if result >= 0 { return entries.map(\.revents) }
            let failure = Errno.current
            // A signal (SIGINT) lands here first; its handler has written to the interruption pipe.
            if failure == .interrupted { continue }
            throw SystemCallError("ppoll", failure)
        }
    }
}

/// SIGINT and SIGQUIT handling for `reach ping` without Swift concurrency: the handler
/// writes one byte to a pipe that the poll loop watches. iputils ends the run with its
/// statistics on SIGINT, and prints the statistics so far on SIGQUIT and goes on; the loop
/// does the same when it sees the byte.
public enum InterruptSignal {
    nonisolated(unsafe) static var descriptor: Int32 = -1

    /// The bytes written to the pipe, as `ICMPSocket.wait` reads them. An enum's raw value
    /// is a plain switch, with no lazy initialiser to run inside a signal handler (as a
    /// static constant's first read may).
    enum Byte: UInt8 {
        case stop = 1
        case status = 2
    }

    public static func install(writingTo descriptor: Int32) {
        Self.descriptor = descriptor  // set before any signal can arrive
        signal(SIGINT) { _ in InterruptSignal.send(.stop) }
        signal(SIGQUIT) { _ in InterruptSignal.send(.status) }
    }

    static func send(_ byte: Byte) {
        var value = byte.rawValue
        _ = write(descriptor, &value, 1)
    }
}

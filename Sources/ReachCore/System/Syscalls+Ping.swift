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
/// writes one byte to a pipe that the poll loop watches (iputils prints the statistics
/// on SIGINT; the loop does the same when it sees the byte).
public enum InterruptSignal {
    nonisolated(unsafe) static var descriptor: Int32 = -1

    public static func install(writingTo descriptor: Int32) {
        Self.descriptor = descriptor
        signal(SIGINT) { _ in
            var byte: UInt8 = 1
            _ = write(InterruptSignal.descriptor, &byte, 1)
        }
    }
}

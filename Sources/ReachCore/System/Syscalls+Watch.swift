#if canImport(Glibc)
import Glibc
#endif
import CReachShims

extension System {
    /// CLOCK_MONOTONIC in milliseconds: deadlines, immune to clock steps.
    static func monotonicMilliseconds() -> Int64 { milliseconds(of: CLOCK_MONOTONIC) }

    /// CLOCK_REALTIME in milliseconds since the epoch: what is printed.
    static func realtimeMilliseconds() -> Int64 { milliseconds(of: CLOCK_REALTIME) }

    private static func milliseconds(of clock: clockid_t) -> Int64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// Blocks `signals` for this thread (and the threads it starts later) and returns a
    /// signalfd that becomes readable when one arrives: signals join the poll set.
    static func signalDescriptor(for signals: [Int32]) throws -> Int32 {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        let status = pthread_sigmask(SIG_BLOCK, &set, nil)
        guard status == 0 else { throw SystemCallError("pthread_sigmask", Errno(rawValue: status)) }
        return try syscall("signalfd") { signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK)) }
    }

    /// Reads one pending `signalfd_siginfo`; the signal number, or nil when none was pending.
    static func readSignal(_ fd: Int32) -> Int32? {
        var info = signalfd_siginfo()
        let count = withUnsafeMutableBytes(of: &info) { read(fd, $0.baseAddress, $0.count) }
        return count == MemoryLayout<signalfd_siginfo>.size ? Int32(info.ssi_signo) : nil
    }

    /// Tries SO_RCVBUFFORCE (root may exceed rmem_max), then SO_RCVBUF.
    static func setReceiveBuffer(_ fd: Int32, to size: Int32) {
        if (try? setOption(fd, SOL_SOCKET, SO_RCVBUFFORCE, size)) == nil {
            try? setOption(fd, SOL_SOCKET, SO_RCVBUF, size)
        }
    }
}

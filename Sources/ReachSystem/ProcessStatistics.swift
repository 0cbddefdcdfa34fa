#if canImport(Glibc)
import Glibc
#endif

/// The process's own figures, as Prometheus's client libraries export them
/// (client_golang `prometheus/process_collector_procfs.go`): CPU time, memory, descriptors.
public struct ProcessStatistics: Sendable, Equatable {
    /// User plus system CPU time (getrusage(2) RUSAGE_SELF).
    public var cpuSeconds: Double
    /// Resident and virtual memory (proc(5) /proc/self/statm, in pages); nil when statm
    /// cannot be read (no /proc mounted), so the series is left out rather than shown as 0.
    public var residentBytes: Double?
    public var virtualBytes: Double?
    /// The entries of /proc/self/fd; nil when it cannot be read.
    public var openDescriptors: Int?
    /// RLIMIT_NOFILE's soft limit.
    public var maximumDescriptors: Double

    public static func current() -> ProcessStatistics {
        // getrusage and getrlimit on this process fail only for a bad pointer (EFAULT), which
        // these stack values cannot be: their results need no check.
        var usage = rusage()
        _ = System.resourceUsage(&usage)
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        let page = Double(System.pageSize())
        let statm = System.readSmallFile("/proc/self/statm", limit: 256).map {
            $0.split(separator: " ").compactMap { Double($0.filter { $0 != "\n" }) }
        }
        var limit = rlimit()
        _ = System.resourceLimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return ProcessStatistics(
            cpuSeconds: cpu,
            residentBytes: statm.flatMap { $0.count > 1 ? $0[1] * page : nil },
            virtualBytes: statm.flatMap { $0.first.map { $0 * page } },
            openDescriptors: try? System.directoryEntries("/proc/self/fd").get().count,
            maximumDescriptors: limit.rlim_cur == rlim_t.max ? Double.infinity : Double(limit.rlim_cur))
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The process's own figures, as Prometheus's client libraries export them
/// (client_golang `prometheus/process_collector_procfs.go`): CPU time, memory, descriptors.
public struct ProcessStatistics: Sendable, Equatable {
    /// User plus system CPU time (getrusage(2) RUSAGE_SELF).
    public var cpuSeconds: Double
    /// Resident and virtual memory (proc(5) /proc/self/statm, in pages).
    public var residentBytes: Double
    public var virtualBytes: Double
    public var openDescriptors: Int
    /// RLIMIT_NOFILE's soft limit.
    public var maximumDescriptors: Double

    public static func current() -> ProcessStatistics {
        var usage = rusage()
        _ = System.resourceUsage(&usage)
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        let page = Double(System.pageSize())
        let statm = System.readSmallFile("/proc/self/statm", limit: 256) ?? ""
        let fields = statm.split(separator: " ").compactMap { Double($0.filter { $0 != "\n" }) }
        var limit = rlimit()
        _ = System.resourceLimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return ProcessStatistics(
            cpuSeconds: cpu,
            residentBytes: fields.count > 1 ? fields[1] * page : 0,
            virtualBytes: fields.first.map { $0 * page } ?? 0,
            openDescriptors: System.countDirectoryEntries("/proc/self/fd"),
            maximumDescriptors: limit.rlim_cur == rlim_t.max ? Double.infinity : Double(limit.rlim_cur))
    }
}

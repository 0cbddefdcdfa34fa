import ReachCore
import ReachSystem

/// The exporter's own process, under the names Prometheus's client libraries use
/// (client_golang `prometheus/process_collector.go`).
public enum ProcessMetrics {
    /// A figure the system would not give (no /proc) is left out, not reported as 0, as
    /// client_golang's collector leaves it out.
    public static func samples(_ statistics: ProcessStatistics, startTime: RealtimeInstant) -> [MetricSample] {
        let optional: [MetricSample?] = [
            MetricSample("process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.", kind: .counter,
                         value: statistics.cpuSeconds),
            statistics.residentBytes.map {
                MetricSample("process_resident_memory_bytes", help: "Resident memory size in bytes.", value: $0)
            },
            statistics.virtualBytes.map {
                MetricSample("process_virtual_memory_bytes", help: "Virtual memory size in bytes.", value: $0)
            },
            statistics.openDescriptors.map {
                MetricSample("process_open_fds", help: "Number of open file descriptors.", value: Double($0))
            },
            MetricSample("process_max_fds", help: "Maximum number of open file descriptors.", value: statistics.maximumDescriptors),
            MetricSample(
                "process_start_time_seconds", help: "Start time of the process since unix epoch in seconds.",
                value: startTime.secondsSinceEpoch),
        ]
        return optional.compactMap { $0 }
    }
}

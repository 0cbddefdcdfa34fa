import ReachCore
import ReachSystem

extension ProbeMeasurement {
    public struct TCP: Sendable, Equatable {
        /// The peer closed the connection before a line matched a step's expect.
        public var failedDueToRegex = false

        public init(failedDueToRegex: Bool = false) {
            self.failedDueToRegex = failedDueToRegex
        }
    }

    /// blackbox_exporter's tcp prober (`prober/tcp.go`): probe_failed_due_to_regex, then
    /// what chooseProtocol registers.
    func tcpSamples(_ tcp: TCP) -> [MetricSample] {
        [MetricSample("probe_failed_due_to_regex", help: "Indicates if probe failed due to regex", value: tcp.failedDueToRegex ? 1 : 0)]
            + addressSamples
    }
}

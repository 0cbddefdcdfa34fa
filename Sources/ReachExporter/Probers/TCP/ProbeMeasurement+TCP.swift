import ReachCore
import ReachExporterProbes
import ReachSystem

extension ProbeMeasurement {
    public struct TCP: Sendable, Equatable {
        /// The peer closed the connection before a line matched a step's expect.
        public var failedDueToRegex = false
        /// What the last TLS handshake (tls, or a STARTTLS step) showed of the server; nil
        /// without one.
        public var tls: TLSStream.Peer?

        public init(failedDueToRegex: Bool = false, tls: TLSStream.Peer? = nil) {
            self.failedDueToRegex = failedDueToRegex
            self.tls = tls
        }
    }

    /// blackbox_exporter's tcp prober (`prober/tcp.go`): probe_failed_due_to_regex, the TLS
    /// metrics once a handshake succeeded, then what chooseProtocol registers.
    func tcpSamples(_ tcp: TCP) -> [MetricSample] {
        [MetricSample("probe_failed_due_to_regex", help: "Indicates if probe failed due to regex", value: tcp.failedDueToRegex ? 1 : 0)]
            + (tcp.tls.map(Self.tlsSamples) ?? []) + addressSamples
    }
}

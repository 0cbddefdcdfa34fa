import ReachCore
import ReachExporterProbes
import ReachSystem

extension ProbeMeasurement {
    public struct GRPC: Sendable, Equatable {
        /// The check phase: from the connection's start to the call's end; nil when the
        /// name did not resolve and no call was made.
        public var checkSeconds: Double?
        /// grpc-go's status code of the call (0: OK).
        public var statusCode = 0
        /// The response's serving status; nil when the call failed.
        public var servingStatus: GRPCHealthMessage.ServingStatus?
        /// The TLS session's peer, when the call ran over TLS.
        public var tls: TLSStream.Peer?

        public init() {}
    }

    /// blackbox_exporter's grpc prober (`prober/grpc.go`): the phases, whether TLS was used,
    /// the call's status code, a series per serving status the protocol names once a call
    /// was made (1 for the one answered), the TLS peer's series, then what chooseProtocol
    /// registers.
    /// probe_ssl_earliest_cert_expiry, which blackbox_exporter also registers without TLS
    /// and then reports as 0 (the epoch), is left out: without a certificate there is no
    /// expiry, and a 0 would set off every certificate-expiry alert.
    func grpcSamples(_ grpc: GRPC) -> [MetricSample] {
        var phases = [("resolve", lookup.secondsValue)]
        if let check = grpc.checkSeconds { phases.append(("check", check)) }
        var samples = phases.map { phase, seconds in
            MetricSample(
                "probe_grpc_duration_seconds", help: "Duration of gRPC request by phase", labels: [.init("phase", phase)], value: seconds)
        }
        samples.append(MetricSample("probe_grpc_ssl", help: "Indicates if SSL was used for the connection", value: grpc.tls == nil ? 0 : 1))
        samples.append(MetricSample("probe_grpc_status_code", help: "Response gRPC status code", value: Double(grpc.statusCode)))
        if grpc.checkSeconds != nil {
            for (status, name) in GRPCHealthMessage.ServingStatus.named {
                samples.append(MetricSample(
                    "probe_grpc_healthcheck_response", help: "Response HealthCheck response", labels: [.init("serving_status", name)],
                    value: grpc.servingStatus == status ? 1 : 0))
            }
        }
        // With TLS, what grpc.go registers of the peer: no probe_ssl_last_chain_expiry_timestamp_seconds.
        let tls = grpc.tls.map(Self.tlsSamples)?.filter { $0.name != "probe_ssl_last_chain_expiry_timestamp_seconds" } ?? []
        return samples + tls + addressSamples
    }
}

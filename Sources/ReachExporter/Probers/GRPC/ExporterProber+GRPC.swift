import ReachCore
import ReachExporterProbes
import ReachSystem

extension ExporterProber {
    /// blackbox_exporter's grpc prober (`prober/grpc.go`): the health check's Check call for
    /// the module's service, over TLS with `tls`; success when the answer is SERVING.
    func grpc(
        _ address: IPAddress, target: ProbeTarget, settings: GRPCProberSettings, deadline: MonotonicInstant,
        into measurement: inout ProbeMeasurement
    ) throws {
        guard case .grpc(var grpc) = measurement.detail else { return }
        let port = target.port ?? 80
        // grpc-go's :authority is the target it dialled, host:port.
        let authority = (target.host.contains(":") ? "[\(target.host)]" : target.host) + ":\(port)"
        let checkStart = MonotonicInstant.now()
        let check = GRPCHealthCheck(service: settings.service, tls: settings.tls ? settings.tlsConfig : nil)
        let outcome = try check.run(
            to: address, port: port, host: target.host, authority: authority, from: settings.address.binding, deadline: deadline)
        grpc.checkSeconds = (MonotonicInstant.now() - checkStart).secondsValue
        grpc.statusCode = outcome.statusCode.rawValue
        grpc.servingStatus = outcome.servingStatus
        grpc.tls = outcome.tls
        measurement.detail = .grpc(grpc)
        switch outcome.failure {
        case nil where outcome.servingStatus == .serving: measurement.success = true
        case nil: measurement.fail(.notServing)
        case .notConnected(let why)?:
            measurement.routeRefusal = why.routeRefusal
            measurement.fail(.connect(why))
        case .timedOut?: measurement.fail(.timedOut)
        case .connectionFailed?: measurement.fail(.connectionClosed)
        case .tls(let why)?: measurement.fail(.tls(why))
        case .status?: measurement.fail(.grpcStatus)
        }
    }
}

/// The grpc prober's own.
extension ProbeFailureReason {
    /// The health check answered, with a serving status other than SERVING.
    public static let notServing = Self(rawValue: "not_serving")
    /// The call ended with a gRPC status other than OK (probe_grpc_status_code says which:
    /// NOT_FOUND for a service the server does not know).
    public static let grpcStatus = Self(rawValue: "grpc_status")
}

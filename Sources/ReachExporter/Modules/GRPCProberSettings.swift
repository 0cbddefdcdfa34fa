import Yams

/// The grpc prober's own keys of blackbox.yml (blackbox_exporter 0.23 `config/config.go`,
/// GRPCProbe): the service whose health is asked. TLS (`tls: true`, `tls_config`) is
/// refused at load: this build has no TLS client.
public struct GRPCProberSettings: Hashable, Sendable {
    /// service: "" asks about the server as a whole
    /// (https://github.com/grpc/grpc/blob/master/doc/health-checking.md).
    public var service = ""

    public init() {}

    static let keys: Set<String> = ["service", "tls", "tls_config"]

    /// Reads `key` (one of `keys`) of a grpc module's settings.
    mutating func parse(_ key: String, _ value: Node) throws(ExporterConfiguration.Error) {
        switch key {
        case "service":
            guard let text = value.string else { throw ExporterConfiguration.Error(value.mark?.line, "service: expected a string") }
            service = text
        case "tls":
            guard let flag = value.bool else { throw ExporterConfiguration.Error(value.mark?.line, "tls: not true or false") }
            if flag { throw ExporterConfiguration.Error(value.mark?.line, "tls: TLS is not supported by this build of the grpc prober") }
        default:
            throw ExporterConfiguration.Error(value.mark?.line, "\(key): TLS is not supported by this build of the grpc prober")
        }
    }
}

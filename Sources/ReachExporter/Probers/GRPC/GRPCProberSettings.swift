import ReachExporterProbes
import ReachExporterSystem
import ReachSystem

/// The `grpc` settings of a module (blackbox_exporter 0.23 `config/config.go` GRPCProbe):
/// the standard health check (grpc.health.v1) of `service` ("" is the server as a whole).
public struct GRPCProberSettings: Hashable, Sendable {
    public var service = ""
    public var tls = false
    public var tlsConfig = TLSSettings()
    public var ipProtocolFallback = true
    public var preferredIPProtocol = ExporterModule.IPProtocol.ip6

    public init() {}

    /// A module without a grpc mapping: Go's zero value, the fallback off.
    static let unset: GRPCProberSettings = {
        var settings = GRPCProberSettings()
        settings.ipProtocolFallback = false
        return settings
    }()

    static func parse(_ node: Node, _ reader: ConfigurationReader) throws(ConfigurationError) -> GRPCProberSettings {
        var settings = GRPCProberSettings()
        try reader.fields(node, at: "grpc") { key, value throws(ConfigurationError) in
            let name = "grpc.\(key)"
            switch key {
            case "service": settings.service = try value.text(name)
            case "tls": settings.tls = try value.flag(name)
            case "tls_config": settings.tlsConfig = try TLSSettings.parse(value, at: name, reader)
            case "ip_protocol_fallback": settings.ipProtocolFallback = try value.flag(name)
            case "preferred_ip_protocol": settings.preferredIPProtocol = try value.ipProtocol(name)
            default: return false
            }
            return true
        }
        return settings
    }
}

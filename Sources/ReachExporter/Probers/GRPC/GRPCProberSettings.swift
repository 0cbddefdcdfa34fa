import ReachExporterProbes
import ReachExporterSystem
import ReachSystem

/// The `grpc` settings of a module (blackbox_exporter 0.23 `config/config.go` GRPCProbe):
/// the standard health check (grpc.health.v1) of `service` ("" is the server as a whole).
public struct GRPCProberSettings: Hashable, Sendable, BlackboxSettings, AddressChoosing {
    public var service = ""
    public var tls = false
    public var tlsConfig = TLSSettings()
    public var address = AddressSettings()

    public init() {}

    /// A module without a grpc mapping: Go's zero value, the fallback off.
    static let unset: GRPCProberSettings = {
        var settings = GRPCProberSettings()
        settings.address.ipProtocolFallback = false
        return settings
    }()

    /// The grpc prober's keys, in the debug output's order.
    static var keys: [ProberKey<Self>] {
        [
            .text("service", \.service), .flag("tls", \.tls), .ipProtocolFallback, .preferredIPProtocol, .sourceInterface,
            .tlsConfig(\.tlsConfig),
        ]
    }

    static func parse(_ node: Node, _ reader: ConfigurationReader) throws(ConfigurationError) -> GRPCProberSettings {
        var settings = GRPCProberSettings()
        try reader.read(node, at: "grpc", into: &settings, keys)
        try settings.address.settle(node, at: "grpc")
        return settings
    }
}

import ReachExporterProbes
import ReachExporterSystem
import ReachSystem

/// The `tcp` settings of a module (blackbox_exporter 0.23 `config/config.go` TCPProbe).
public struct TCPProberSettings: Hashable, Sendable, BlackboxSettings, AddressChoosing {
    /// One step of `query_response`: wait for a line matching `expect`, send `send` (with
    /// `${1}`... from expect's groups), or start TLS.
    public struct QueryResponse: Hashable, Sendable {
        public var expect: BlackboxRegex?
        public var send = ""
        public var startTLS = false
    }

    public var address = AddressSettings()
    public var queryResponse: [QueryResponse] = []
    public var tls = false
    public var tlsConfig = TLSSettings()

    public init() {}

    /// The tcp prober's keys, in the debug output's order.
    static var keys: [ProberKey<Self>] {
        [
            .preferredIPProtocol, .ipProtocolFallback, .sourceIPAddress, .sourceInterface, .flag("tls", \.tls),
            ProberKey("query_response") { settings, node, key, reader throws(ConfigurationError) in
                settings.queryResponse = try queryResponse(node, key, reader)
            },
            .tlsConfig(\.tlsConfig),
        ]
    }

    static func parse(_ node: Node, _ reader: ConfigurationReader) throws(ConfigurationError) -> TCPProberSettings {
        var settings = TCPProberSettings()
        try reader.read(node, at: "tcp", into: &settings, keys)
        try settings.address.settle(node, at: "tcp")
        return settings
    }

    private static func queryResponse(_ node: Node, _ key: String, _ reader: ConfigurationReader)
        throws(ConfigurationError) -> [QueryResponse]
    {
        try node.list(key) { item throws(ConfigurationError) in
            var step = QueryResponse()
            try reader.fields(item, at: key) { field, value throws(ConfigurationError) in
                switch field {
                case "expect":
                    let regex = try value.regex("\(key).expect")
                    step.expect = regex.pattern.isEmpty ? nil : regex
                case "send": step.send = try value.text("\(key).send")
                case "starttls": step.startTLS = try value.flag("\(key).starttls")
                default: return false
                }
                return true
            }
            return step
        }
    }
}

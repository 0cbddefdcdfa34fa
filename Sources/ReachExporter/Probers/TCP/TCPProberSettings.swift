import ReachExporterProbes
import ReachExporterSystem
import ReachSystem

/// The `tcp` settings of a module (blackbox_exporter 0.23 `config/config.go` TCPProbe).
public struct TCPProberSettings: Hashable, Sendable {
    /// One step of `query_response`: wait for a line matching `expect`, send `send` (with
    /// `${1}`... from expect's groups), or start TLS.
    public struct QueryResponse: Hashable, Sendable {
        public var expect: BlackboxRegex?
        public var send = ""
        public var startTLS = false
    }

    public var preferredIPProtocol = ExporterModule.IPProtocol.ip6
    public var ipProtocolFallback = true
    /// Empty: the kernel's choice.
    public var sourceIPAddress = ""
    public var queryResponse: [QueryResponse] = []
    public var tls = false
    public var tlsConfig = TLSSettings()

    public init() {}

    static func parse(_ node: Node, _ reader: ConfigurationReader) throws(ConfigurationError) -> TCPProberSettings {
        var settings = TCPProberSettings()
        try reader.fields(node, at: "tcp") { key, value throws(ConfigurationError) in
            let name = "tcp.\(key)"
            switch key {
            case "preferred_ip_protocol": settings.preferredIPProtocol = try value.ipProtocol(name)
            case "ip_protocol_fallback": settings.ipProtocolFallback = try value.flag(name)
            case "source_ip_address": settings.sourceIPAddress = try value.sourceAddress(name)
            case "query_response": settings.queryResponse = try queryResponse(value, name, reader)
            case "tls": settings.tls = try value.flag(name)
            case "tls_config": settings.tlsConfig = try TLSSettings.parse(value, at: name, reader)
            default: return false
            }
            return true
        }
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

extension YAMLNode {
    /// `source_ip_address`: an IP address, or empty (blackbox_exporter refuses any other text
    /// at each probe; said once here).
    func sourceAddress(_ key: String) throws(ConfigurationError) -> String {
        let text = try text(key)
        guard text.isEmpty || (try? IPAddress.parse(text)) != nil else {
            throw ConfigurationError(mark?.line, "\(key): '\(text)' is not an IP address")
        }
        return text
    }
}

extension ExporterModule {
    /// A `source_ip_address` as the probers bind it: nil when empty (checked at load).
    static func sourceAddress(_ text: String) -> IPAddress? {
        text.isEmpty ? nil : try? IPAddress.parse(text)
    }
}

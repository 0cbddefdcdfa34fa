import ReachExporterSystem
import ReachSystem

/// The `icmp` settings of a module (blackbox_exporter 0.23 `config/config.go` ICMPProbe):
/// the hop limit 64 unless said.
public struct ICMPProberSettings: Hashable, Sendable {
    public var preferredIPProtocol = ExporterModule.IPProtocol.ip6
    public var ipProtocolFallback = true
    public var sourceIPAddress = ""
    /// Bytes of payload after the ICMP header; 0: blackbox_exporter's own default payload.
    public var payloadSize = 0
    public var dontFragment = false
    public var ttl = 64

    public init() {}

    static func parse(_ node: Node, _ reader: ConfigurationReader) throws(ConfigurationError) -> ICMPProberSettings {
        var settings = ICMPProberSettings()
        try reader.fields(node, at: "icmp") { key, value throws(ConfigurationError) in
            let name = "icmp.\(key)"
            switch key {
            case "preferred_ip_protocol": settings.preferredIPProtocol = try value.ipProtocol(name)
            case "ip_protocol_fallback": settings.ipProtocolFallback = try value.flag(name)
            case "source_ip_address": settings.sourceIPAddress = try value.sourceAddress(name)
            // An IPv4 datagram holds at most 65,535 bytes, 28 of them the IP and ICMP headers.
            case "payload_size": settings.payloadSize = try value.integer(name, in: 0...65_507)
            case "dont_fragment": settings.dontFragment = try value.flag(name)
            // config.go: "ttl" cannot be negative, cannot exceed 255; `prober/icmp.go` sets it
            // only when above 0, so 0 is the kernel's default (an empty value keeps 64).
            case "ttl": if !value.isNull { settings.ttl = try value.integer(name, in: 0...255) }
            default: return false
            }
            return true
        }
        return settings
    }
}

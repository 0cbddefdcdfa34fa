import ReachExporterSystem
import ReachSystem

/// The `icmp` settings of a module (blackbox_exporter 0.23 `config/config.go` ICMPProbe):
/// the hop limit 64 unless said.
public struct ICMPProberSettings: Hashable, Sendable, BlackboxSettings, AddressChoosing {
    public var address = AddressSettings()
    /// Bytes of payload after the ICMP header; 0: blackbox_exporter's own default payload.
    public var payloadSize = 0
    public var dontFragment = false
    public var ttl = 64

    public init() {}

    /// The icmp prober's keys, in the debug output's order.
    static var keys: [ProberKey<Self>] {
        [
            .preferredIPProtocol, .ipProtocolFallback, .sourceIPAddress, .sourceInterface,
            ProberKey(
                "payload_size",
                // An IPv4 datagram holds at most 65,535 bytes, 28 of them the IP and ICMP headers.
                read: { settings, node, key, _ throws(ConfigurationError) in settings.payloadSize = try node.integer(key, in: 0...65_507) },
                shown: unlessDefault(\.payloadSize) { String($0) }),
            .flag("dont_fragment", \.dontFragment),
            // config.go: "ttl" cannot be negative, cannot exceed 255; `prober/icmp.go` sets it
            // only when above 0, so 0 is the kernel's default (an empty value keeps 64).
            ProberKey(
                "ttl",
                read: { settings, node, key, _ throws(ConfigurationError) in
                    if !node.isNull { settings.ttl = try node.integer(key, in: 0...255) }
                },
                shown: { String($0.ttl) }),
        ]
    }

    static func parse(_ node: Node, _ reader: ConfigurationReader) throws(ConfigurationError) -> ICMPProberSettings {
        var settings = ICMPProberSettings()
        try reader.read(node, at: "icmp", into: &settings, keys)
        try settings.address.settle(node, at: "icmp")
        return settings
    }
}

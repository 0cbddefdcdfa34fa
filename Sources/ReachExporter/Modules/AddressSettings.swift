import ReachExporterSystem
import ReachSystem

/// The keys several probers share, read here alone: which address family to ask the resolver
/// for first and whether to fall back to the other (blackbox_exporter's `prober/utils.go`
/// chooseProtocol), and the address to send from. Each prober's key table takes the ones
/// blackbox_exporter 0.23 gives it (`config/config.go`: http and grpc have no source address),
/// and reach's own two, which every prober takes: `source_interface` and
/// `preferred_ip_protocol: both`.
public struct AddressSettings: Hashable, Sendable, BlackboxSettings {
    public var preferredIPProtocol = ExporterModule.IPProtocol.ip6
    public var ipProtocolFallback = true
    /// Empty: the kernel's choice.
    public var sourceIPAddress = ""
    /// The link every socket of the probe is bound to (SO_BINDTODEVICE); empty: the kernel's choice.
    public var sourceInterface = ""

    public init() {}

    /// `source_ip_address` as the probers bind it: nil when empty (checked at load).
    var source: IPAddress? { sourceIPAddress.isEmpty ? nil : try? IPAddress.parse(sourceIPAddress) }

    /// `source_ip_address` and `source_interface` as the probers bind their sockets.
    var binding: SocketBinding { SocketBinding(address: source, interface: sourceInterface.isEmpty ? nil : sourceInterface) }

    /// `preferred_ip_protocol`: ip4 or ip6 (blackbox_exporter's `prober/utils.go`: anything
    /// else is ip6, said here instead), or reach's `both`; printed when not ip6.
    static var preferredIPProtocolKey: ProberKey<AddressSettings> {
        ProberKey(
            "preferred_ip_protocol",
            read: { settings, node, key, _ throws(ConfigurationError) in
                let text = try node.text(key)
                guard let chosen = text.isEmpty ? .ip6 : ExporterModule.IPProtocol(rawValue: text) else {
                    throw ConfigurationError(node.mark?.line, "\(key): '\(text)' is neither ip4 nor ip6")
                }
                settings.preferredIPProtocol = chosen
            },
            shown: unlessDefault(\.preferredIPProtocol) { $0.rawValue })
    }

    static var ipProtocolFallbackKey: ProberKey<AddressSettings> { .flag("ip_protocol_fallback", \.ipProtocolFallback) }

    /// `source_ip_address`: an IP address, or empty (blackbox_exporter refuses any other text
    /// at each probe; said once here, at load).
    static var sourceIPAddressKey: ProberKey<AddressSettings> {
        ProberKey(
            "source_ip_address",
            read: { settings, node, key, _ throws(ConfigurationError) in
                let text = try node.text(key)
                guard text.isEmpty || (try? IPAddress.parse(text)) != nil else {
                    throw ConfigurationError(node.mark?.line, "\(key): '\(text)' is not an IP address")
                }
                settings.sourceIPAddress = text
            },
            shown: { DebugValue.text($0.sourceIPAddress) })
    }

    /// `source_interface`: a name the kernel could give a link, or empty. Whether the link
    /// exists is the probe's question, not the load's: links come and go while the exporter runs.
    static var sourceInterfaceKey: ProberKey<AddressSettings> {
        ProberKey(
            "source_interface",
            read: { settings, node, key, _ throws(ConfigurationError) in
                let text = try node.text(key)
                guard text.isEmpty || isLinkName(text) else {
                    throw ConfigurationError(node.mark?.line, "\(key): '\(text)' cannot name a link")
                }
                settings.sourceInterface = text
            },
            shown: { DebugValue.text($0.sourceInterface) })
    }

    /// The kernel's rule for a link's name (dev_valid_name in net/core/dev.c): at most 15
    /// bytes (IFNAMSIZ less its NUL), not "." or "..", no slash, colon or white space.
    static func isLinkName(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...15).contains(bytes.count), text != ".", text != ".." else { return false }
        // isspace(3) in the C locale: space, \t, \n, \v, \f, \r.
        return !bytes.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ":") || $0 == 0x20 || (0x09...0x0D).contains($0) }
    }

    /// After the mapping is read: `both` probes every family, so there is none to fall back
    /// to. An `ip_protocol_fallback: true` written beside it is refused with its line; its
    /// default is dropped, so that the debug output shows what runs.
    mutating func settle(_ node: Node, at path: String) throws(ConfigurationError) {
        guard preferredIPProtocol == .both else { return }
        let written = node.mapping?.first { $0.key.string == "ip_protocol_fallback" }
        if let written, written.value.bool == true {
            throw ConfigurationError(
                written.key.mark?.line,
                "\(path).ip_protocol_fallback: not with preferred_ip_protocol: both, which probes every family at once")
        }
        ipProtocolFallback = false
    }
}

/// A prober's settings that hold the shared keys.
protocol AddressChoosing {
    var address: AddressSettings { get set }
}

extension ProberKey where Settings: AddressChoosing {
    static var preferredIPProtocol: ProberKey { AddressSettings.preferredIPProtocolKey.within(\.address) }
    static var ipProtocolFallback: ProberKey { AddressSettings.ipProtocolFallbackKey.within(\.address) }
    static var sourceIPAddress: ProberKey { AddressSettings.sourceIPAddressKey.within(\.address) }
    static var sourceInterface: ProberKey { AddressSettings.sourceInterfaceKey.within(\.address) }
}

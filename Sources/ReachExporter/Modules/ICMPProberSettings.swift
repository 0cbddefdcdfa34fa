import ReachSystem
import Yams

/// The icmp prober's own keys of blackbox.yml (blackbox_exporter 0.23 `config/config.go`,
/// ICMPProbe, and `prober/icmp.go`): the echo request's TTL, payload size, the IPv4 DF bit
/// and the source address.
public struct ICMPProberSettings: Hashable, Sendable {
    /// ttl: IP_TTL / IPV6_UNICAST_HOPS; blackbox_exporter sets 64 unless told (0: the
    /// kernel's default).
    public var ttl = 64
    /// dont_fragment: DF on IPv4 echo requests (IP_MTU_DISCOVER = IP_PMTUDISC_DO, ip(7));
    /// blackbox_exporter applies it to IPv4 only.
    public var dontFragment = false
    /// payload_size: the echo's data bytes; nil: blackbox_exporter's 28 ("Prometheus
    /// Blackbox Exporter").
    public var payloadSize: Int?
    /// source_ip_address: the address the socket is bound to.
    public var sourceAddress: IPAddress?

    public init() {}

    /// The largest ICMP payload an IPv4 datagram carries: 65535 less the IP and ICMP headers.
    static let largestPayload = 65_535 - 20 - 8

    static let keys: Set<String> = ["ttl", "dont_fragment", "payload_size", "source_ip_address"]

    /// Reads `key` (one of `keys`) of an icmp module's settings.
    mutating func parse(_ key: String, _ value: Node) throws(ExporterConfiguration.Error) {
        switch key {
        case "ttl":
            // config.go: "ttl" cannot be negative, cannot exceed 255.
            guard let number = value.int, (0...255).contains(number) else {
                throw ExporterConfiguration.Error(value.mark?.line, "ttl: '\(value.string ?? "?")' is not a TTL from 0 to 255")
            }
            ttl = number
        case "dont_fragment":
            guard let flag = value.bool else { throw ExporterConfiguration.Error(value.mark?.line, "dont_fragment: not true or false") }
            dontFragment = flag
        case "payload_size":
            guard let number = value.int, (0...Self.largestPayload).contains(number) else {
                throw ExporterConfiguration.Error(
                    value.mark?.line, "payload_size: '\(value.string ?? "?")' is not a size from 0 to \(Self.largestPayload)")
            }
            payloadSize = number == 0 ? nil : number
        default:
            sourceAddress = try TCPProberSettings.sourceAddress(value)
        }
    }
}

/// The icmp prober's own.
extension ProbeFailureReason {
    /// The kernel refused to send the echo request (EMSGSIZE): larger than the path's MTU
    /// with dont_fragment set.
    public static let packetTooBig = Self(rawValue: "packet_too_big")
}

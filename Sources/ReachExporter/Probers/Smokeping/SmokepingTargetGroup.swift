import ReachCore
import ReachExporterSystem
import ReachSystem

/// One group of smokeping_prober's `targets:` (its `config/config.go` TargetGroup), its
/// defaults as the initial values (DefaultTargetGroup: 1 s, network ip, protocol icmp,
/// 56 bytes). Each key is declared once, in `keys`: reading, checking and refusing.
public struct SmokepingTargetGroup: Equatable, Sendable, BlackboxSettings {
    public var hosts: [String] = []
    public var interval = TimeSpan.seconds(1)
    /// `ip`: every address of a name, both families (smokeping_prober pings one); `ip4`,
    /// `ip6`: that family's only.
    public var network = "ip"
    /// `icmp` or `udp` (smokeping_prober's privileged and unprivileged ICMP sockets): reach
    /// takes the ICMP socket the system allows, datagram or raw, for both. reach's `tcp`:
    /// the handshake to `port` timed.
    public var transport = "icmp"
    /// `protocol: tcp`'s port (reach's own key).
    public var port = 0
    /// ICMP data bytes.
    public var size = 56
    /// The address probes leave from (bound, as smokeping_prober's `source`).
    public var source: IPAddress?
    /// The IP TOS byte: read and checked, refused unless 0 (reach does not set it yet).
    public var tos = 0
    /// Labels added to each series of the group, sorted by name.
    public var labels: [HeaderField] = []

    public init() {}

    /// The shortest interval: iputils' flood pacing (ping_common.c, 10 ms for a user), the
    /// most often reach's engine probes one target.
    public static let shortestInterval = PingConfiguration.floodPacing
    /// smokeping_prober's packet sizes (its --ping.size): at least its 24-byte payload
    /// header, at most an IP datagram.
    public static let sizes = 24...65_535
    /// Every address of every group is one probe in flight at most (its timeout is its
    /// interval, at most 2 s: fping's count-mode timeout), and one run's probes share one
    /// 16-bit ICMP sequence space: more than this would take a late reply for a new probe's.
    public static let mostAddresses = 65_000

    /// The group's keys, in smokeping_prober's field order.
    static var keys: [ProberKey<Self>] {
        [
            ProberKey("hosts") { group, node, key, _ throws(ConfigurationError) in group.hosts += try node.texts(key) },
            // Later versions fold a single `host` into `hosts`.
            ProberKey("host") { group, node, key, _ throws(ConfigurationError) in
                let host = try node.text(key)
                if !host.isEmpty { group.hosts.append(host) }
            },
            ProberKey("interval") { group, node, key, _ throws(ConfigurationError) in group.interval = try interval(node, key) },
            .choice("network", \.network, ["ip", "ip4", "ip6"]),
            .choice("protocol", \.transport, ["icmp", "udp", "tcp"]),
            ProberKey("port") { group, node, key, _ throws(ConfigurationError) in group.port = try node.integer(key, in: 1...65_535) },
            ProberKey("size") { group, node, key, _ throws(ConfigurationError) in group.size = try node.integer(key, in: sizes) },
            ProberKey("source") { group, node, key, _ throws(ConfigurationError) in
                let text = try node.text(key)
                guard !text.isEmpty else { return }
                guard let address = try? IPAddress.parse(text) else {
                    throw ConfigurationError(node.mark?.line, "\(key): '\(text)' is not an IP address")
                }
                group.source = address
            },
            // Read and checked as smokeping_prober's uint8; reach does not set it yet.
            ProberKey("tos") { group, node, key, _ throws(ConfigurationError) in
                group.tos = try node.integer(key, in: 0...255)
                if group.tos != 0 { throw ConfigurationError(node.mark?.line, "\(key): not yet supported by reach-exporter (only 0)") }
            },
            ProberKey("labels") { group, node, key, _ throws(ConfigurationError) in group.labels = try labels(node, key) },
        ]
    }

    private static func interval(_ node: Node, _ key: String) throws(ConfigurationError) -> TimeSpan {
        let text = try node.text(key)
        guard let span = try? TimeSpan.parse(text, .go) else {
            throw ConfigurationError(node.mark?.line, "\(key): not a duration: '\(text)' (1s, 250ms)")
        }
        guard span >= shortestInterval else {
            let floor = shortestInterval.description
            throw ConfigurationError(node.mark?.line, "\(key): \(text) is shorter than \(floor), the shortest reach keeps")
        }
        return span
    }

    /// Prometheus label names ([a-zA-Z_][a-zA-Z0-9_]*), neither `host` nor `ip`, which each
    /// series has already.
    private static func labels(_ node: Node, _ key: String) throws(ConfigurationError) -> [HeaderField] {
        let pairs = try node.pairs(key)
        for pair in pairs {
            let bytes = Array(pair.name.utf8)
            let valid = bytes.enumerated().allSatisfy { index, byte in
                byte == UInt8(ascii: "_") || (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
                    || index > 0 && byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            }
            guard valid, !bytes.isEmpty, !pair.name.hasPrefix("__"), pair.name != "host", pair.name != "ip" else {
                throw ConfigurationError(node.mark?.line, "\(key).\(pair.name): not a label name a series may take")
            }
        }
        return pairs.sorted { $0.name < $1.name }
    }

    /// smokeping_prober's `targets:` list: each group read by `keys`, unknown keys refused
    /// with their line, and the whole held to what one sequence space keeps apart.
    static func groups(_ node: Node) throws(ConfigurationError) -> [SmokepingTargetGroup] {
        let reader = ConfigurationReader(prober: "targets", tool: "smokeping_prober")
        let groups = try node.list("targets") { item throws(ConfigurationError) in
            var group = SmokepingTargetGroup()
            try reader.read(item, at: "targets", into: &group, keys)
            if (group.transport == "tcp") != (group.port != 0) {
                throw ConfigurationError(item.mark?.line, "targets.port: a port goes with protocol tcp, and tcp needs one")
            }
            return group
        }
        let hosts = groups.reduce(0) { $0 + $1.hosts.count }
        if hosts > mostAddresses {
            throw ConfigurationError(
                node.mark?.line, "targets: \(hosts) hosts, more than the \(mostAddresses) one ICMP sequence space keeps apart")
        }
        return groups
    }
}

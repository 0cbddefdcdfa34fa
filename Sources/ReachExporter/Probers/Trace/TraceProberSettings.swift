import ReachCore
import ReachExporterSystem
import ReachSystem

/// The `trace` settings of a module: reach's own prober (blackbox_exporter 0.23 has none,
/// and refuses the word), `reach trace`'s engine for one pass: its method, hops, probes
/// per hop and port, with `reach trace`'s defaults (traceroute's) but one probe per hop.
public struct TraceProberSettings: Hashable, Sendable, BlackboxSettings, AddressChoosing {
    public var address = AddressSettings()
    /// udp (traceroute's default: no privilege), icmp or tcp.
    public var method = TraceMethod.udp.rawValue
    public var firstHop = 1
    public var maxHops = TraceSettings().maxHops
    public var probesPerHop = 1
    /// 0: the method's own (UDP 33434, TCP 80).
    public var port = 0

    public init() {}

    /// The trace prober's keys, in the debug output's order.
    static var keys: [ProberKey<Self>] {
        [
            .preferredIPProtocol, .ipProtocolFallback, .sourceIPAddress, .sourceInterface,
            .choice("method", \.method, TraceMethod.allCases.map(\.rawValue)),
            integer("first_hop", \.firstHop, TraceSettings.hopLimits, default: 1),
            integer("max_hops", \.maxHops, TraceSettings.hopLimits, default: TraceSettings().maxHops),
            integer("probes_per_hop", \.probesPerHop, TraceSettings.probesPerHopRange, default: 1),
            integer("port", \.port, 0...65_535, default: 0),
        ]
    }

    private static func integer(_ name: String, _ path: WritableKeyPath<Self, Int>, _ range: ClosedRange<Int>, default value: Int)
        -> ProberKey<Self>
    {
        ProberKey(
            name, read: { settings, node, key, _ throws(ConfigurationError) in settings[keyPath: path] = try node.integer(key, in: range) },
            shown: { $0[keyPath: path] == value ? nil : String($0[keyPath: path]) })
    }

    static func parse(_ node: Node, _ reader: ConfigurationReader) throws(ConfigurationError) -> TraceProberSettings {
        var settings = TraceProberSettings()
        try reader.read(node, at: "trace", into: &settings, keys)
        try settings.address.settle(node, at: "trace")
        guard settings.firstHop <= settings.maxHops else {
            throw ConfigurationError(node.mark?.line, "trace: first_hop \(settings.firstHop) is past max_hops \(settings.maxHops)")
        }
        return settings
    }

    /// The engine's settings for one pass toward `address`, each probe waiting at most
    /// `wait` (the probe's time left, at most traceroute's 5 s).
    func engineSettings(wait: TimeSpan) -> TraceSettings {
        var settings = TraceSettings()
        settings.method = TraceMethod(rawValue: method) ?? .udp
        settings.firstHop = firstHop
        settings.maxHops = maxHops
        settings.probesPerHop = probesPerHop
        settings.port = port == 0 ? nil : UInt16(port)
        settings.source = address.source
        settings.interface = address.sourceInterface.isEmpty ? nil : address.sourceInterface
        settings.waits = TraceWaits(maximum: min(settings.waits.maximum, wait))
        return settings
    }
}

import ReachCommandLine
import ReachCore
import ReachSystem

/// smokeping_prober 0.6.1's own command line (its main.go's flags; the web and log flags are
/// the exporter's already), as Debian's /etc/default/prometheus-smokeping-prober passes it,
/// with reach's `--resolve-interval` and `--smokeping`.
public struct SmokepingOptions: Equatable, Sendable {
    /// Hosts given as operands: one more group, as smokeping_prober adds them.
    public var hosts: [String] = []
    public var interval = Defaults.interval
    public var size = Defaults.size
    /// `--privileged`: accepted; reach takes the ICMP socket the system allows.
    public var privileged = false
    /// The round trips' histogram: smokeping_prober's buckets (or --buckets) and its native
    /// resolution.
    public var layout = LatencyHistogram.Layout.smokeping
    public var telemetryPath = Defaults.telemetryPath
    public var resolveInterval = Defaults.resolveInterval
    /// Serve as smokeping_prober would: its port and its configuration file when not given.
    public var mode = false
    /// The configuration file is smokeping_prober's default one, which may be absent.
    public var configMayBeMissing = false

    public init() {}

    enum Defaults {
        static let interval = TimeSpan.seconds(1)
        static let size = 56
        static let telemetryPath = "/metrics"
        /// `reach watch --resolve-interval`'s default.
        static let resolveInterval = TimeSpan.seconds(60)
    }

    /// smokeping_prober's listening port (the Prometheus wiki's "Default port allocations").
    public static let defaultPort: UInt16 = 9374
    /// smokeping_prober's --config.file default.
    public static let defaultConfigPath = "/etc/prometheus/smokeping_prober.yml"
    /// Program names that mean `--smokeping`: smokeping_prober's and Debian's, so a link of
    /// either name to reach-exporter serves a packaged unit unchanged.
    public static let programNames = ["smokeping_prober", "prometheus-smokeping-prober"]

    /// The options, declared for the command line whose field `group` holds them.
    static func commandLine<Outer>(_ group: @escaping GroupField<Outer, SmokepingOptions>) -> [OptionDeclaration<Outer>] {
        [
            .member(Option.mode, in: group), .member(Option.interval, in: group), .member(Option.size, in: group),
            .member(Option.privileged, in: group), .member(Option.buckets, in: group), .member(Option.telemetryPath, in: group),
            .member(Option.resolveInterval, in: group),
        ]
    }

    enum Option {
        static let mode = OptionDeclaration<SmokepingOptions>.flag(
            long: "smokeping",
            help: "Serve as smokeping_prober: port \(SmokepingOptions.defaultPort) and \(SmokepingOptions.defaultConfigPath) unless given."
        ) { $0.mode = true }
        static let interval = OptionDeclaration<SmokepingOptions>.typed(
            "i", long: "ping.interval", .pingInterval, valueName: "duration", default: Defaults.interval,
            help: "Ping the hosts given as operands this often (smokeping_prober's)."
        ) { $0.interval = $1 }
        static let size = OptionDeclaration<SmokepingOptions>.typed(
            "s", long: "ping.size", .count(SmokepingTargetGroup.sizes), valueName: "bytes", default: Defaults.size,
            help: "ICMP data bytes of the operands' pings (smokeping_prober's)."
        ) { $0.size = $1 }
        static let privileged = OptionDeclaration<SmokepingOptions>.flag(
            long: "privileged", help: "Accepted for smokeping_prober's command lines: reach takes the ICMP socket the system allows."
        ) { $0.privileged = true }
        static let buckets = OptionDeclaration<SmokepingOptions>.typed(
            long: "buckets", .buckets, valueName: "seconds,...",
            help: "The round-trip histogram's bucket bounds (default 5e-05 doubling to 26.2144)."
        ) { $0.layout = $1 }
        static let telemetryPath = OptionDeclaration<SmokepingOptions>.value(
            long: "web.telemetry-path", .next, valueName: "path", default: Defaults.telemetryPath,
            help: "Serve the metrics at this path too (smokeping_prober's)."
        ) { $0.telemetryPath = $1 }
        static let resolveInterval = OptionDeclaration<SmokepingOptions>.typed(
            long: "resolve-interval", .positiveDuration, valueName: "duration", default: Defaults.resolveInterval,
            help: "Look the targets' names up again this often."
        ) { $0.resolveInterval = $1 }
    }

    /// The operands as smokeping_prober makes them a group (main.go: the flags' interval
    /// and size); nil without operands.
    public var commandLineGroup: SmokepingTargetGroup? {
        guard !hosts.isEmpty else { return nil }
        var group = SmokepingTargetGroup()
        group.hosts = hosts
        group.interval = interval
        group.size = size
        return group
    }

    /// `--smokeping`, or a program named as smokeping_prober: its port unless an address was
    /// given, its configuration file unless one was (absent, it is not an error).
    mutating func applyMode(program: String?, to options: inout ExporterOptions, listening: Bool, config: String?) {
        if let program, Self.programNames.contains(String(program.split(separator: "/").last ?? "")) { mode = true }
        guard mode else { return }
        if !listening { options.listenAddresses = [ExporterOptions.ListenAddress(host: "::", port: Self.defaultPort)] }
        if config == nil {
            options.configPath = Self.defaultConfigPath
            configMayBeMissing = true
        }
    }
}

extension ValueType where Value == TimeSpan {
    /// -i: a Go duration (smokeping_prober's kingpin Duration), no shorter than a target's floor.
    static var pingInterval: ValueType {
        ValueType(written: { $0.description }, read: { text in
            guard let span = try? TimeSpan.parse(text, .go), span >= SmokepingTargetGroup.shortestInterval else {
                let floor = SmokepingTargetGroup.shortestInterval.description
                return .failure(.said(": '\(PrintableText.ascii(text))' is not a duration of at least \(floor) (1s, 250ms)"))
            }
            return .success(span)
        })
    }
}

extension ValueType where Value == LatencyHistogram.Layout {
    /// --buckets: seconds, comma separated, each above the last (client_golang refuses
    /// others), with smokeping_prober's native resolution beside.
    static var buckets: ValueType {
        ValueType(written: { $0.upperBounds.map { String($0) }.joined(separator: ",") }, read: { text in
            do throws(LatencyHistogram.BoundsError) {
                let bounds = try LatencyHistogram.Layout.upperBounds(parsing: text)
                let factor = LatencyHistogram.Layout.smokepingNativeFactor
                return .success(try LatencyHistogram.Layout(upperBounds: bounds, nativeFactor: factor))
            } catch {
                return .failure(.said(": '\(PrintableText.ascii(text))': \(error)"))
            }
        })
    }
}

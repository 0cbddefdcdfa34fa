import ReachCommandLine
import ReachCore
import ReachSystem

/// The configuration in force and its file: read at start, read again on SIGHUP or
/// `POST /-/reload` (blackbox_exporter's `main.go`, `reloadConfig`). A new file that cannot
/// be read or parsed leaves the old configuration in force; the outcome is two gauges,
/// blackbox_exporter's `*_config_last_reload_successful` and
/// `*_config_last_reload_success_timestamp_seconds`, under reach-exporter's prefix and its.
public final class ExporterConfigurationFile: @unchecked Sendable {
    /// The largest file read: a blackbox.yml is a few kilobytes.
    static let limit = 1 << 20

    public let path: String?
    private let lock = Lock()
    private var current: ExporterRouter
    /// smokeping_prober's `targets:` of the file in force.
    private var targets: [SmokepingTargetGroup]
    private var smokepingGauges = false
    private var lastSucceeded = true
    private var lastSuccessTime: RealtimeInstant

    /// Why a file cannot be used: its name and what is wrong, as one line.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }

        /// What is wrong with the file at `path`, its name shown safely.
        public init(file path: String, _ problem: String) {
            description = "\(PrintableText.ascii(path)): \(problem)"
        }
    }

    /// Reads `path` (nil: the built-in modules) and holds its modules behind `allow`;
    /// `mayBeMissing`: an absent file is no file (smokeping_prober's default path).
    public init(
        path: String?, allow: AllowList, timeoutOffset: TimeSpan = ExporterRouter.timeoutOffset, now: RealtimeInstant,
        mayBeMissing: Bool = false, telemetryPath: String = "/metrics"
    ) throws(Failure) {
        let exists = !mayBeMissing || path.map { FileContents.read($0, limit: 0) != .failure(.noSuchFile) } ?? false
        let used = exists ? path : nil
        self.path = used
        let file = try Self.contents(at: used)
        current = ExporterRouter(modules: file.modules, allow: allow, timeoutOffset: timeoutOffset)
        current.telemetryPath = telemetryPath
        targets = file.targets
        lastSuccessTime = now
    }

    /// smokeping_prober's target groups of the file in force.
    public var smokepingGroups: [SmokepingTargetGroup] { lock.withLock { targets } }

    /// Whether smokeping_prober's reload gauges are served too (its targets are probed).
    public var servesSmokeping: Bool {
        get { lock.withLock { smokepingGauges } }
        set { lock.withLock { smokepingGauges = newValue } }
    }

    /// The router of the configuration in force.
    public var router: ExporterRouter { lock.withLock { current } }

    /// Reads the file again: nil when its modules are now in force, else why the old ones stay.
    public func reload(now: RealtimeInstant) -> Failure? {
        // Read outside the lock: scrapes go on with the old configuration meanwhile.
        let result = Result { () throws(Failure) in try Self.contents(at: path) }
        return lock.withLock {
            switch result {
            case .success(let file):
                current.modules = file.modules
                targets = file.targets
                lastSucceeded = true
                lastSuccessTime = now
                return nil
            case .failure(let failure):
                lastSucceeded = false
                return failure
            }
        }
    }

    /// The gauges under reach-exporter's prefix, and the same under blackbox_exporter's
    /// (`config/config.go`), so that its users' alerts on reloads keep working.
    public var samples: [MetricSample] {
        lock.withLock {
            // smokeping_prober 0.6.1's help says "Blackbox" too (its config/config.go).
            let smokeping = smokepingGauges ? [("smokeping_prober", "Blackbox")] : []
            let names = [("reach_exporter", "Reach"), ("blackbox_exporter", "Blackbox")] + smokeping
            return names.flatMap { prefix, name in
                [
                    MetricSample("\(prefix)_config_last_reload_successful", help: "\(name) exporter config loaded successfully.",
                                 value: lastSucceeded ? 1 : 0),
                    MetricSample("\(prefix)_config_last_reload_success_timestamp_seconds",
                                 help: "Timestamp of the last successful configuration reload.", value: lastSuccessTime.secondsSinceEpoch),
                ]
            }
        }
    }

    static func contents(at path: String?) throws(Failure) -> (modules: [ExporterModule], targets: [SmokepingTargetGroup]) {
        guard let path else { return (ExporterModule.defaults, []) }
        let shown = PrintableText.ascii(path)
        switch FileContents.read(path, limit: limit) {
        case .failure(let errno):
            throw Failure(description: "\(shown): \(errno)")
        case .success(let bytes):
            do {
                return try ExporterConfiguration.parseFile(String(decoding: bytes, as: UTF8.self))
            } catch {
                throw Failure(description: "\(shown): \(error.message)")
            }
        }
    }
}

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

    /// Reads `path` (nil: the built-in modules) and holds its modules behind `allow`.
    public init(
        path: String?, allow: AllowList, timeoutOffset: TimeSpan = ExporterRouter.timeoutOffset, now: RealtimeInstant
    ) throws(Failure) {
        self.path = path
        current = ExporterRouter(modules: try Self.modules(at: path), allow: allow, timeoutOffset: timeoutOffset)
        lastSuccessTime = now
    }

    /// The router of the configuration in force.
    public var router: ExporterRouter { lock.withLock { current } }

    /// Reads the file again: nil when its modules are now in force, else why the old ones stay.
    public func reload(now: RealtimeInstant) -> Failure? {
        // Read outside the lock: scrapes go on with the old configuration meanwhile.
        let result = Result { () throws(Failure) in try Self.modules(at: path) }
        return lock.withLock {
            switch result {
            case .success(let modules):
                current.modules = modules
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
            [("reach_exporter", "Reach"), ("blackbox_exporter", "Blackbox")].flatMap { prefix, name in
                [
                    MetricSample("\(prefix)_config_last_reload_successful", help: "\(name) exporter config loaded successfully.",
                                 value: lastSucceeded ? 1 : 0),
                    MetricSample("\(prefix)_config_last_reload_success_timestamp_seconds",
                                 help: "Timestamp of the last successful configuration reload.", value: lastSuccessTime.secondsSinceEpoch),
                ]
            }
        }
    }

    static func modules(at path: String?) throws(Failure) -> [ExporterModule] {
        guard let path else { return ExporterModule.defaults }
        let shown = PrintableText.ascii(path)
        switch FileContents.read(path, limit: limit) {
        case .failure(let errno):
            throw Failure(description: "\(shown): \(errno)")
        case .success(let bytes):
            do {
                return try ExporterConfiguration.parse(String(decoding: bytes, as: UTF8.self))
            } catch {
                throw Failure(description: "\(shown): \(error.message)")
            }
        }
    }
}

import ReachCore
import ReachSystem

/// The exporter's log lines on standard error: `--log.level` filters them (as
/// blackbox_exporter's promlog does: debug, info, warn, error), `--log.format` writes them as
/// go-kit's logfmt or json, with a UTC time and the level; without it, reach's own form,
/// `reach-exporter: message`.
public struct ExporterLog: Sendable, Equatable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warn, error

        public var name: String { String(describing: self) }
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public enum Format: String, Sendable, CaseIterable {
        /// reach's own: `reach-exporter: message`.
        case plain
        case logfmt
        case json
    }

    public var level = Level.info
    public var format = Format.plain

    public init(level: Level = .info, format: Format = .plain) {
        self.level = level
        self.format = format
    }

    /// The line for `message` at `severity` (with its newline), or nil when the level hides it.
    public func line(_ severity: Level, _ message: String, at time: RealtimeInstant) -> String? {
        guard severity >= level else { return nil }
        let timestamp = UTCTimestamp.iso8601(time)
        switch format {
        case .plain: return "reach-exporter: \(message)\n"
        case .logfmt: return "ts=\(timestamp) level=\(severity.name) msg=\(JSONString.quoted(message))\n"
        case .json: return "{\"ts\":\(JSONString.quoted(timestamp)),\"level\":\"\(severity.name)\",\"msg\":\(JSONString.quoted(message))}\n"
        }
    }

    /// Writes the line for `message`, if the level lets it through.
    public func write(_ severity: Level, _ message: String) {
        if let line = line(severity, message, at: .now()) { OutputChannel.standardError.write(line) }
    }
}

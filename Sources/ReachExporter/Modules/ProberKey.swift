import ReachExporterProbes
import ReachExporterSystem
import ReachSystem

/// One key of a prober's blackbox.yml mapping, declared once: its name, how its value is read
/// into the settings (its type, checked at load with the key's line; the settings' initial
/// value is the default), whether reach runs it, and how `&debug=true` prints it. A prober's
/// `keys` table drives reading its mapping, refusing what reach does not run, and its block
/// of the debug output; the table's order is the debug output's (blackbox_exporter's
/// `config/config.go` field order, as yaml.v3 marshals it).
struct ProberKey<Settings> {
    /// Reads the value into the settings; `key` is the key's full name for errors ("tcp.tls").
    typealias Read = (inout Settings, Node, _ key: String, ConfigurationReader) throws(ConfigurationError) -> Void

    let name: String
    /// False: known to blackbox_exporter, read and checked, but refused at load when the
    /// module's own prober sets it to anything but empty (a module never silently means
    /// less than it says).
    let runs: Bool
    let read: Read
    /// The value as the debug output prints it; nil leaves the key out (yaml.v3's omitempty).
    let shown: (Settings) -> String?

    init(_ name: String, runs: Bool = true, read: @escaping Read, shown: @escaping (Settings) -> String? = { _ in nil }) {
        self.name = name
        self.runs = runs
        self.read = read
        self.shown = shown
    }

    /// A true/false key, printed only when true unless `always`.
    static func flag(_ name: String, _ path: WritableKeyPath<Settings, Bool>, always: Bool = false) -> ProberKey {
        ProberKey(
            name, read: { settings, node, key, _ throws(ConfigurationError) in settings[keyPath: path] = try node.flag(key) },
            shown: { always ? String($0[keyPath: path]) : DebugValue.flag($0[keyPath: path]) })
    }

    /// A string key, printed as yaml.v3 writes it when not empty.
    static func text(_ name: String, _ path: WritableKeyPath<Settings, String>) -> ProberKey {
        ProberKey(
            name, read: { settings, node, key, _ throws(ConfigurationError) in settings[keyPath: path] = try node.text(key) },
            shown: { DebugValue.text($0[keyPath: path]) })
    }

    /// A list of regular expressions, printed as their patterns.
    static func regexes(_ name: String, _ path: WritableKeyPath<Settings, [BlackboxRegex]>) -> ProberKey {
        ProberKey(
            name, read: { settings, node, key, _ throws(ConfigurationError) in settings[keyPath: path] = try node.regexes(key) },
            shown: { DebugValue.list($0[keyPath: path].map(\.pattern)) })
    }

    /// `tls_config`, read as TLSSettings.parse reads it; not printed.
    static func tlsConfig(_ path: WritableKeyPath<Settings, TLSSettings>) -> ProberKey {
        ProberKey("tls_config") { settings, node, key, reader throws(ConfigurationError) in
            settings[keyPath: path] = try TLSSettings.parse(node, at: key, reader)
        }
    }

    /// The same key read into, and printed from, the part of `Outer` at `path` (the http
    /// prober's client settings, the address choice several probers share).
    func within<Outer>(_ path: WritableKeyPath<Outer, Settings>) -> ProberKey<Outer> {
        let (read, shown) = (self.read, self.shown)
        return ProberKey<Outer>(
            name, runs: runs,
            read: { outer, node, key, reader throws(ConfigurationError) in try read(&outer[keyPath: path], node, key, reader) },
            shown: { shown($0[keyPath: path]) })
    }
}

/// Settings whose initial values are blackbox_exporter's defaults, the one place they are written.
protocol BlackboxSettings {
    init()
}

extension BlackboxSettings {
    /// How a key's value prints, left out while it is the default (the default read from
    /// `Self()`, not written again).
    static func unlessDefault<Value: Equatable>(_ path: KeyPath<Self, Value>, _ shown: @escaping (Value) -> String?) -> (Self) -> String? {
        let standard = Self()[keyPath: path]
        return { settings in settings[keyPath: path] == standard ? nil : shown(settings[keyPath: path]) }
    }
}

extension ProberKey where Settings: BlackboxSettings {
    /// One of `choices`, or empty for the default; printed when not the default.
    static func choice(_ name: String, _ path: WritableKeyPath<Settings, String>, _ choices: [String]) -> ProberKey {
        let standard = Settings()[keyPath: path]
        return ProberKey(
            name,
            read: { settings, node, key, _ throws(ConfigurationError) in
                settings[keyPath: path] = try node.choice(key, choices).nonEmpty ?? standard
            },
            shown: Settings.unlessDefault(path) { $0 })
    }
}

extension ConfigurationReader {
    /// The mapping `node` at `path` ("dns", "http.oauth2") read by `keys` into `settings`:
    /// a key the table does not have is unknown; one it has but reach does not run is
    /// refused for the module's own prober.
    func read<Settings>(_ node: Node, at path: String, into settings: inout Settings, _ keys: [ProberKey<Settings>])
        throws(ConfigurationError)
    {
        let refused = Set(keys.filter { !$0.runs }.map(\.name))
        let isRun = { (name: String) in !refused.contains(name) }
        try fields(node, at: path, runs: isRun) { name, value throws(ConfigurationError) in
            guard let key = keys.first(where: { $0.name == name }) else { return false }
            try key.read(&settings, value, "\(path).\(name)", self)
            return true
        }
    }
}

/// Values as `&debug=true` prints them: blackbox_exporter marshals its Module with yaml.v3
/// (empty values left out, `omitempty`).
enum DebugValue {
    /// A prober's block: its name, then each key the table prints, four spaces in.
    static func block<Settings>(_ name: String, _ settings: Settings, _ keys: [ProberKey<Settings>]) -> String {
        // A nested block's value starts on the next line, so no space follows its colon.
        let present = keys.compactMap { key in key.shown(settings).map { "    \(key.name):\($0.hasPrefix("\n") ? "" : " ")\($0)\n" } }
        return present.isEmpty ? "" : "\(name):\n" + present.joined()
    }

    static func flag(_ value: Bool) -> String? { value ? "true" : nil }

    /// A string as yaml.v3 writes it: plain when YAML would read it back as that string.
    static func text(_ value: String) -> String? {
        guard !value.isEmpty else { return nil }
        let plain = value.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || "./_-".unicodeScalars.contains($0)
        }
        return plain && value.first?.isLetter == true ? value : JSONString.quoted(value)
    }

    static func numbers(_ values: [Int]) -> String? {
        values.isEmpty ? nil : "[" + values.map(String.init).joined(separator: ", ") + "]"
    }

    static func list(_ values: [String]) -> String? {
        values.isEmpty ? nil : "[" + values.map { text($0) ?? "\"\"" }.joined(separator: ", ") + "]"
    }
}

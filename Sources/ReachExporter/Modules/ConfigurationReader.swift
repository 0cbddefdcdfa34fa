import ReachCommandLine
import ReachExporterSystem
import ReachSystem

/// The node type the configuration is read from: libyaml's tree, through ReachExporterSystem.
typealias Node = YAMLNode
/// One line naming the key and its line.
typealias ConfigurationError = ExporterConfiguration.Error

/// Reads blackbox.yml's mappings as blackbox_exporter's decoder does (yaml.v3 with
/// `KnownFields(true)`): each key known to its mapping, at most once, else one line naming
/// it; and, in the module's own prober's settings, each key that reach does not run yet
/// (its `ProberKey` says so) refused, so a module never silently means less than it says.
final class ConfigurationReader {
    /// The prober whose settings are checked against what reach runs; the other probers'
    /// settings are read and checked as blackbox_exporter checks them, and then unused, as
    /// there.
    let prober: String
    /// False only to see whether a file is blackbox_exporter's form at all (the tests of the
    /// files Debian ships, which name probers and keys reach may not run yet).
    let checksImplemented: Bool
    /// The program whose form the file is, named when a key is unknown to it.
    let tool: String

    init(prober: String, checksImplemented: Bool = true, tool: String = "blackbox_exporter 0.23") {
        self.prober = prober
        self.checksImplemented = checksImplemented
        self.tool = tool
    }

    /// Calls `read` with each key of the mapping `node` (at `path`, e.g. "http.tls_config")
    /// and its value; `read` answers false for a key it does not know, `runs` false for one
    /// reach does not run yet. A null node is an empty mapping: the defaults stay.
    func fields(
        _ node: Node, at path: String, runs: (String) -> Bool = { _ in true }, _ read: (String, Node) throws(ConfigurationError) -> Bool
    ) throws(ConfigurationError) {
        if node.isNull { return }
        guard let pairs = node.mapping else { throw ConfigurationError(node.mark?.line, "\(path): expected a mapping") }
        var seen: Set<String> = []
        for (key, value) in pairs {
            guard let name = key.string else { throw ConfigurationError(key.mark?.line, "\(path): a key must be a string") }
            let full = path.isEmpty ? name : "\(path).\(name)"
            guard seen.insert(name).inserted else {
                throw ConfigurationError(key.mark?.line, "\(full): mapping key already defined")
            }
            guard try read(name, value) else {
                throw ConfigurationError(key.mark?.line, "\(full): unknown key (\(tool) has no such setting)")
            }
            if !runs(name) { try refuse(full, value, line: key.mark?.line) }
        }
    }

    /// A key of the module's own prober that reach does not run yet is refused, unless empty:
    /// an empty value leaves blackbox_exporter's default, which reach runs.
    private func refuse(_ full: String, _ value: Node, line: Int?) throws(ConfigurationError) {
        guard checksImplemented, full == prober || full.hasPrefix(prober + ".") else { return }
        if value.isNull || value.mapping?.isEmpty == true || value.sequence?.isEmpty == true { return }
        throw ConfigurationError(line, "\(full): not yet supported by reach-exporter")
    }
}

/// Values as blackbox_exporter's Go types take them; each error names the key and its line.
extension YAMLNode {
    func text(_ key: String) throws(ConfigurationError) -> String {
        if isNull { return "" }
        guard let text = string else { throw ConfigurationError(mark?.line, "\(key): expected a string") }
        return text
    }

    func flag(_ key: String) throws(ConfigurationError) -> Bool {
        if isNull { return false }
        guard let flag = bool else {
            throw ConfigurationError(mark?.line, "\(key): expected true or false, not '\(string ?? "?")'")
        }
        return flag
    }

    func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        if isNull { return 0 }
        guard let number = int else {
            throw ConfigurationError(mark?.line, "\(key): expected a whole number, not '\(string ?? "?")'")
        }
        guard range.contains(number) else {
            throw ConfigurationError(mark?.line, "\(key): \(number) is not within \(range.lowerBound)-\(range.upperBound)")
        }
        return number
    }

    /// A list (null: empty), each item read by `item`.
    func list<Item>(_ key: String, _ item: (Node) throws(ConfigurationError) -> Item) throws(ConfigurationError) -> [Item] {
        if isNull { return [] }
        guard let items = sequence else { throw ConfigurationError(mark?.line, "\(key): expected a list") }
        var values: [Item] = []
        for node in items { values.append(try item(node)) }
        return values
    }

    func texts(_ key: String) throws(ConfigurationError) -> [String] {
        try list(key) { node throws(ConfigurationError) in try node.text(key) }
    }

    func regexes(_ key: String) throws(ConfigurationError) -> [BlackboxRegex] {
        try list(key) { node throws(ConfigurationError) in try node.regex(key) }
    }

    /// A regular expression in RE2's syntax (Go's regexp, which blackbox_exporter uses), read by
    /// ReachRegex; what RE2 refuses is refused at load, with its line.
    func regex(_ key: String) throws(ConfigurationError) -> BlackboxRegex {
        let pattern = try text(key)
        do {
            return try BlackboxRegex(pattern)
        } catch {
            throw ConfigurationError(mark?.line, "\(key): '\(pattern)': \(error.message)")
        }
    }

    /// A mapping of strings to strings, in the file's order (headers, endpoint_params).
    func pairs(_ key: String) throws(ConfigurationError) -> [HeaderField] {
        if isNull { return [] }
        guard let pairs = mapping else { throw ConfigurationError(mark?.line, "\(key): expected a mapping") }
        var fields: [HeaderField] = []
        for (name, value) in pairs {
            let text = try name.text(key)
            if fields.contains(where: { $0.name == text }) {
                throw ConfigurationError(name.mark?.line, "\(key).\(text): mapping key already defined")
            }
            fields.append(HeaderField(name: text, value: try value.text("\(key).\(text)")))
        }
        return fields
    }

    /// One of `choices` (the empty text too when allowed: blackbox's default).
    func choice(_ key: String, _ choices: [String]) throws(ConfigurationError) -> String {
        let text = try text(key)
        guard text.isEmpty || choices.contains(text) else {
            let known = choices.count > 8 ? "a name blackbox_exporter knows" : "one of " + choices.joined(separator: ", ")
            throw ConfigurationError(mark?.line, "\(key): '\(text)' is not \(known)")
        }
        return text
    }
}

/// A name and a value, in the order the file gives them.
public struct HeaderField: Hashable, Sendable {
    public var name: String
    public var value: String
}

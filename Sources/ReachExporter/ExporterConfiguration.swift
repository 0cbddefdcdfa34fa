import ReachCommandLine
import ReachCore
import ReachExporterSystem
import ReachSystem

/// `--config.file FILE`: modules in blackbox_exporter 0.23's `blackbox.yml` form, read with
/// libyaml as its decoder reads them (`config/config.go`: yaml.v3, unknown keys refused).
/// Every key of every prober is read into typed settings with blackbox_exporter's defaults;
/// a key that reach does not run yet is refused (each prober's `ProberKey` table says which),
/// so that a module never silently means less than it says.
public enum ExporterConfiguration {
    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        /// One printable line, whatever the file's keys and values hold.
        init(_ line: Int?, _ message: String) {
            let printable = PrintableText.ascii(message)
            self.message = line.map { "line \($0): \(printable)" } ?? printable
        }
    }

    /// The modules of `text`; `checkingImplemented` false reads blackbox_exporter's whole form,
    /// probers and keys that reach does not run yet included (such modules cannot be served).
    public static func parse(_ text: String, checkingImplemented: Bool = true) throws(Error) -> [ExporterModule] {
        let file = try parseFile(text, checkingImplemented: checkingImplemented)
        if file.modules.isEmpty { throw Error(nil, "no modules") }
        return file.modules
    }

    /// blackbox's `modules:` and smokeping_prober's `targets:` (either, or both: one process
    /// then serves both), each read with its program's defaults and checks.
    public static func parseFile(
        _ text: String, checkingImplemented: Bool = true
    ) throws(Error) -> (modules: [ExporterModule], targets: [SmokepingTargetGroup]) {
        let root: Node?
        do {
            root = try YAMLNode.parse(Array(text.utf8))
        } catch {
            throw Error(error.line, error.message)
        }
        guard let root else { throw Error(nil, "empty: no modules") }
        var modules: [ExporterModule] = []
        var targets: [SmokepingTargetGroup]?
        try ConfigurationReader(prober: "").fields(root, at: "") { key, value throws(Error) in
            if key == "targets" {
                targets = try SmokepingTargetGroup.groups(value)
                return true
            }
            guard key == "modules" else { return false }
            guard let entries = value.mapping else { throw Error(value.mark?.line, "'modules' must be a mapping of names to modules") }
            for (name, body) in entries {
                guard let moduleName = name.string, !moduleName.isEmpty else { throw Error(name.mark?.line, "a module needs a name") }
                if modules.contains(where: { $0.name == moduleName }) {
                    throw Error(name.mark?.line, "module '\(moduleName)' appears twice")
                }
                modules.append(try module(moduleName, body, checkingImplemented: checkingImplemented))
            }
            return true
        }
        if modules.isEmpty && targets == nil { throw Error(root.mark?.line, "no modules") }
        return (modules, targets ?? [])
    }

    private static func module(_ name: String, _ body: Node, checkingImplemented: Bool) throws(Error) -> ExporterModule {
        guard let fields = body.mapping else { throw Error(body.mark?.line, "module '\(name)' must be a mapping") }
        guard let proberNode = fields.first(where: { $0.key.string == "prober" })?.value else {
            throw Error(body.mark?.line, "module '\(name)' has no prober")
        }
        let proberName = proberNode.string ?? "?"
        let known = ExporterModule.blackboxProbers.contains(proberName)
        let prober = ExporterModule.Prober(rawValue: proberName)
        guard prober != nil || known && !checkingImplemented else {
            if known { throw Error(proberNode.mark?.line, "\(proberName) prober: not yet supported by reach-exporter") }
            throw Error(proberNode.mark?.line, "unknown prober '\(proberName)' (http, tcp, icmp, dns, grpc or reach's route or trace)")
        }
        // A prober reach does not run, read for its form alone: its settings are still checked.
        var module = ExporterModule(name: name, prober: prober ?? .route)
        let reader = ConfigurationReader(prober: proberName, checksImplemented: checkingImplemented)
        try reader.fields(body, at: "") { key, value throws(Error) in
            switch key {
            case "prober": break
            case "timeout": module.timeout = try timeout(value)
            case "http": module.http = try HTTPProberSettings.parse(value, reader)
            case "tcp": module.tcp = try TCPProberSettings.parse(value, reader)
            case "icmp": module.icmp = try ICMPProberSettings.parse(value, reader)
            case "dns": module.dns = try DNSProberSettings.parse(value, reader)
            case "grpc": module.grpc = try GRPCProberSettings.parse(value, reader)
            case "trace": module.trace = try TraceProberSettings.parse(value, reader)
            default: return false
            }
            return true
        }
        return module
    }

    /// Go's time.Duration as yaml.v3 reads it (time.ParseDuration); 0 or none: the scrape's.
    private static func timeout(_ node: Node) throws(Error) -> TimeSpan? {
        let text = try node.text("timeout")
        guard let span = try? TimeSpan.parse(text, .go), span >= .zero else {
            throw Error(node.mark?.line, "timeout: not a duration: '\(text)' (5s, 500ms, 1m30s)")
        }
        return span == .zero ? nil : span
    }
}

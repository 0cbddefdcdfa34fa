import ReachCommandLine
import ReachCore
import ReachSystem
import Yams

/// `--config FILE`: modules in blackbox_exporter's `blackbox.yml` form, read with Yams. Only
/// what reach runs is accepted; any other key is an error naming it and its line, so that
/// a module never silently means less than it says.
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

    public static func parse(_ text: String) throws(Error) -> [ExporterModule] {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw Error(nil, "not YAML: \(String(describing: error).split(separator: "\n").first ?? "")")
        }
        guard let root else { throw Error(nil, "empty: no modules") }
        guard let top = root.mapping else { throw Error(root.mark?.line, "expected a mapping with 'modules'") }
        var modules: [ExporterModule] = []
        for (key, value) in top {
            guard key.string == "modules" else { throw unsupported(key) }
            guard let entries = value.mapping else { throw Error(value.mark?.line, "'modules' must be a mapping of names to modules") }
            for (name, body) in entries {
                guard let moduleName = name.string, !moduleName.isEmpty else { throw Error(name.mark?.line, "a module needs a name") }
                if modules.contains(where: { $0.name == moduleName }) {
                    throw Error(name.mark?.line, "module '\(moduleName)' appears twice")
                }
                modules.append(try module(moduleName, body))
            }
        }
        if modules.isEmpty { throw Error(root.mark?.line, "no modules") }
        return modules
    }

    private static func unsupported(_ key: Node) -> Error {
        Error(key.mark?.line, "unsupported key '\(key.string ?? "?")'")
    }

    private static func module(_ name: String, _ body: Node) throws(Error) -> ExporterModule {
        guard let fields = body.mapping else { throw Error(body.mark?.line, "module '\(name)' must be a mapping") }
        var prober: ExporterModule.Prober?
        var timeout: TimeSpan?
        var settings: [(key: Node, value: Node)] = []
        for (key, value) in fields {
            switch key.string {
            case "prober":
                guard let text = value.string, let chosen = ExporterModule.Prober(rawValue: text) else {
                    throw Error(value.mark?.line, "unsupported prober '\(value.string ?? "?")' (icmp, tcp, http, dns, grpc or route)")
                }
                prober = chosen
            case "timeout":
                guard let text = value.string, let seconds = ExporterModule.seconds(text), seconds > 0 else {
                    throw Error(value.mark?.line, "timeout: not a duration: '\(value.string ?? "?")' (5s, 500ms, 1m)")
                }
                timeout = ExporterModule.span(seconds: seconds)
            case "icmp", "tcp", "http", "dns", "grpc":
                settings.append((key, value))
            default:
                throw unsupported(key)
            }
        }
        guard let prober else { throw Error(body.mark?.line, "module '\(name)' has no prober") }
        var module = ExporterModule(name: name, prober: prober, timeout: timeout)
        // blackbox_exporter's DefaultModule (config.go) sets no grpc defaults: without a grpc
        // mapping its ip_protocol_fallback is false.
        if prober == .grpc, settings.isEmpty { module.ipProtocolFallback = false }
        for (key, value) in settings {
            guard key.string == prober.rawValue else {
                throw Error(key.mark?.line, "'\(key.string ?? "?")' settings in a \(prober.rawValue) module")
            }
            if prober == .dns { try DNSProberSettings.parse(value, into: &module) } else { try apply(value, to: &module) }
        }
        return module
    }

    private static func apply(_ node: Node, to module: inout ExporterModule) throws(Error) {
        guard let fields = node.mapping else { throw Error(node.mark?.line, "expected a mapping") }
        for (key, value) in fields {
            switch key.string {
            case "preferred_ip_protocol":
                guard let text = value.string, let chosen = ExporterModule.IPProtocol(rawValue: text) else {
                    throw Error(value.mark?.line, "preferred_ip_protocol: '\(value.string ?? "?")' is neither ip4 nor ip6")
                }
                module.preferredIPProtocol = chosen
            case "ip_protocol_fallback":
                guard let flag = value.bool else { throw Error(value.mark?.line, "ip_protocol_fallback: not true or false") }
                module.ipProtocolFallback = flag
            case "valid_status_codes" where module.prober == .http:
                guard let codes = value.sequence else { throw Error(value.mark?.line, "valid_status_codes: expected a list") }
                var valid: [Int] = []
                for code in codes {
                    guard let number = code.int, (100...599).contains(number) else {
                        throw Error(code.mark?.line, "valid_status_codes: not an HTTP status code: '\(code.string ?? "?")'")
                    }
                    valid.append(number)
                }
                module.validStatusCodes = valid
            case "follow_redirects" where module.prober == .http:
                guard let flag = value.bool else { throw Error(value.mark?.line, "follow_redirects: not true or false") }
                module.followRedirects = flag
            case "method" where module.prober == .http:
                guard value.string == "GET" else { throw Error(value.mark?.line, "method: only GET is supported") }
            case let name? where module.prober == .tcp && TCPProberSettings.keys.contains(name): try module.tcp.parse(name, value)
            case let name? where module.prober == .icmp && ICMPProberSettings.keys.contains(name): try module.icmp.parse(name, value)
            case let name? where module.prober == .grpc && GRPCProberSettings.keys.contains(name): try module.grpc.parse(name, value)
            default:
                throw unsupported(key)
            }
        }
    }
}

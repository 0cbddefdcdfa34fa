import ReachExporterProbes
import ReachSystem
import Yams

/// The tcp prober's own keys of blackbox.yml (blackbox_exporter 0.23 `config/config.go`,
/// TCPProbe and QueryResponse): the conversation and the source address. TLS (`tls: true`,
/// `starttls`, `tls_config`) is refused at load: this build has no TLS client.
public struct TCPProberSettings: Hashable, Sendable {
    /// query_response: each step's expect (a pattern) and send, in order.
    public var queryResponse: [TCPConversation.Step] = []
    /// source_ip_address: the local address connections are made from.
    public var sourceAddress: IPAddress?

    public init() {}

    static let keys: Set<String> = ["query_response", "source_ip_address", "tls", "tls_config"]

    /// Reads `key` (one of `keys`) of a tcp module's settings.
    mutating func parse(_ key: String, _ value: Node) throws(ExporterConfiguration.Error) {
        switch key {
        case "query_response":
            guard let steps = value.sequence else { throw ExporterConfiguration.Error(value.mark?.line, "query_response: expected a list") }
            queryResponse = []
            for step in steps { queryResponse.append(try Self.step(step)) }
        case "source_ip_address":
            sourceAddress = try Self.sourceAddress(value)
        case "tls":
            guard let flag = value.bool else { throw ExporterConfiguration.Error(value.mark?.line, "tls: not true or false") }
            if flag { throw ExporterConfiguration.Error(value.mark?.line, "tls: TLS is not supported by this build of the tcp prober") }
        default:
            throw ExporterConfiguration.Error(value.mark?.line, "\(key): TLS is not supported by this build of the tcp prober")
        }
    }

    /// One query_response entry: expect (a regular expression), send (a line), starttls.
    private static func step(_ node: Node) throws(ExporterConfiguration.Error) -> TCPConversation.Step {
        guard let fields = node.mapping else {
            throw ExporterConfiguration.Error(node.mark?.line, "query_response: each entry is a mapping of expect, send and starttls")
        }
        var step = TCPConversation.Step()
        for (key, value) in fields {
            switch key.string {
            case "expect":
                step.expect = try pattern(value, key: "expect")
            case "send":
                guard let text = value.string else { throw ExporterConfiguration.Error(value.mark?.line, "send: expected a string") }
                step.send = text
            case "starttls":
                guard let flag = value.bool else { throw ExporterConfiguration.Error(value.mark?.line, "starttls: not true or false") }
                if flag {
                    throw ExporterConfiguration.Error(value.mark?.line, "starttls: TLS is not supported by this build of the tcp prober")
                }
            default:
                throw ExporterConfiguration.Error(key.mark?.line, "query_response: unsupported key '\(key.string ?? "?")'")
            }
        }
        return step
    }

    /// A regular expression of the file, compiled now: one that does not compile is named
    /// with its line at load, not found out at the first probe.
    static func pattern(_ node: Node, key: String) throws(ExporterConfiguration.Error) -> ExpectPattern {
        guard let source = node.string else { throw ExporterConfiguration.Error(node.mark?.line, "\(key): expected a regular expression") }
        do {
            return try ExpectPattern(source)
        } catch {
            throw ExporterConfiguration.Error(node.mark?.line, "\(key): not a regular expression: '\(source)'")
        }
    }

    /// source_ip_address: an address literal (blackbox_exporter's net.ParseIP); "" is none.
    static func sourceAddress(_ node: Node) throws(ExporterConfiguration.Error) -> IPAddress? {
        guard let text = node.string else { throw ExporterConfiguration.Error(node.mark?.line, "source_ip_address: expected an address") }
        if text.isEmpty { return nil }
        guard let address = try? IPAddress.parse(text) else {
            throw ExporterConfiguration.Error(node.mark?.line, "source_ip_address: '\(text)' is not an IP address")
        }
        return address
    }
}

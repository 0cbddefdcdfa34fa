import ReachCore
import ReachExporterProbes
import ReachExporterSystem
import ReachSystem

/// The `dns` settings of a module (blackbox_exporter 0.23 `config/config.go` DNSProbe): a
/// query for `query_name` (which must be set), type ANY and class IN unless said, recursion
/// desired, over UDP, and NOERROR the only valid answer code.
public struct DNSProberSettings: Hashable, Sendable, BlackboxSettings, AddressChoosing {
    /// `validate_*_rrs`: each record of a section, in its text form, against the four lists.
    public struct RRValidator: Hashable, Sendable {
        public var failIfMatchesRegexp: [BlackboxRegex] = []
        public var failIfAllMatchRegexp: [BlackboxRegex] = []
        public var failIfNotMatchesRegexp: [BlackboxRegex] = []
        public var failIfNoneMatchesRegexp: [BlackboxRegex] = []
    }

    public var address = AddressSettings()
    public var dnsOverTLS = false
    public var tlsConfig = TLSSettings()
    /// "udp" or "tcp".
    public var transportProtocol = "udp"
    public var queryClass = "IN"
    public var queryName = ""
    public var queryType = "ANY"
    public var recursionDesired = true
    public var validRcodes = ["NOERROR"]
    public var validateAnswer = RRValidator()
    public var validateAuthority = RRValidator()
    public var validateAdditional = RRValidator()

    public init() {}

    /// The dns prober's keys, in the debug output's order.
    static var keys: [ProberKey<Self>] {
        [
            .preferredIPProtocol, .ipProtocolFallback, .flag("dns_over_tls", \.dnsOverTLS), .sourceIPAddress, .sourceInterface,
            .choice("transport_protocol", \.transportProtocol, ["udp", "tcp"]),
            .choice("query_class", \.queryClass, DNSParameters.classNames),
            ProberKey(
                "query_name", read: { settings, node, key, _ throws(ConfigurationError) in settings.queryName = try node.domainName(key) },
                shown: { DebugValue.text($0.queryName) }),
            .choice("query_type", \.queryType, DNSParameters.typeNames),
            .flag("recursion_desired", \.recursionDesired),
            ProberKey(
                "valid_rcodes", read: { settings, node, key, _ throws(ConfigurationError) in settings.validRcodes = try rcodes(node, key) },
                shown: unlessDefault(\.validRcodes, DebugValue.list)),
            .tlsConfig(\.tlsConfig), validatorKey("validate_answer_rrs", \.validateAnswer),
            validatorKey("validate_authority_rrs", \.validateAuthority), validatorKey("validate_additional_rrs", \.validateAdditional),
        ]
    }

    static func parse(_ node: Node, _ reader: ConfigurationReader) throws(ConfigurationError) -> DNSProberSettings {
        var settings = DNSProberSettings()
        try reader.read(node, at: "dns", into: &settings, keys)
        try settings.address.settle(node, at: "dns")
        // config.go DNSProbe.UnmarshalYAML.
        if settings.queryName.isEmpty { throw ConfigurationError(node.mark?.line, "dns: query name must be set for DNS module") }
        // dns.go fails every probe of such a module ("Expected transport protocol tcp for
        // DoT"); said once, at load, as for a type it does not know.
        if settings.dnsOverTLS && settings.transportProtocol != "tcp" && reader.prober == "dns" {
            throw ConfigurationError(node.mark?.line, "dns.dns_over_tls: needs transport_protocol: tcp")
        }
        return settings
    }

    /// Empty: NOERROR alone (`prober/dns.go`), the default.
    private static func rcodes(_ node: Node, _ key: String) throws(ConfigurationError) -> [String] {
        let names = try node.list(key) { item throws(ConfigurationError) in try item.choice(key, DNSParameters.responseCodeNames) }
        return names.isEmpty ? DNSProberSettings().validRcodes : names
    }

    private static func validatorKey(_ name: String, _ path: WritableKeyPath<Self, RRValidator>) -> ProberKey<Self> {
        ProberKey(name) { settings, node, key, reader throws(ConfigurationError) in
            settings[keyPath: path] = try validator(node, key, reader)
        }
    }

    private static func validator(_ node: Node, _ key: String, _ reader: ConfigurationReader) throws(ConfigurationError) -> RRValidator {
        var validator = RRValidator()
        try reader.fields(node, at: key) { field, value throws(ConfigurationError) in
            let name = "\(key).\(field)"
            switch field {
            case "fail_if_matches_regexp": validator.failIfMatchesRegexp = try value.regexes(name)
            case "fail_if_all_match_regexp": validator.failIfAllMatchRegexp = try value.regexes(name)
            case "fail_if_not_matches_regexp": validator.failIfNotMatchesRegexp = try value.regexes(name)
            case "fail_if_none_matches_regexp": validator.failIfNoneMatchesRegexp = try value.regexes(name)
            default: return false
            }
            return true
        }
        return validator
    }
}

extension YAMLNode {
    /// A domain name in its text form (RFC 1035 5.1), refused at load when it is not one.
    fileprivate func domainName(_ key: String) throws(ConfigurationError) -> String {
        let text = try text(key)
        do {
            _ = try DNSName.parse(text)
        } catch {
            throw ConfigurationError(mark?.line, "\(key): \(error)")
        }
        return text
    }
}

extension DNSProberSettings {
    /// The query the module asks: its name, type and class by number (names checked at load).
    var question: DNSMessage.Question {
        get throws {
            DNSMessage.Question(
                name: try DNSName.parse(queryName), type: DNSParameters.type(named: queryType) ?? 255,
                questionClass: DNSParameters.class(named: queryClass) ?? 1)
        }
    }

    var transport: DNSExchange.Transport { DNSExchange.Transport(rawValue: transportProtocol) ?? .udp }

    var validResponseCodes: [Int] { validRcodes.compactMap(DNSParameters.responseCode(named:)) }
}

extension DNSProberSettings.RRValidator {
    /// blackbox_exporter's validRRs (`prober/dns.go`): whether `records` (each in its text
    /// form) pass the four lists, and when not, which rule failed ("fail_if_matches_regexp"...).
    func failure(of records: [String]) -> String? {
        if records.isEmpty && !failIfNotMatchesRegexp.isEmpty { return "fail_if_not_matches_regexp" }
        if records.isEmpty && !failIfNoneMatchesRegexp.isEmpty { return "fail_if_none_matches_regexp" }
        var (anyMatch, allMatch) = (false, true)
        for record in records {
            if failIfMatchesRegexp.contains(where: { $0.matches(record) }) { return "fail_if_matches_regexp" }
            if failIfAllMatchRegexp.contains(where: { !$0.matches(record) }) { allMatch = false }
            if failIfNotMatchesRegexp.contains(where: { !$0.matches(record) }) { return "fail_if_not_matches_regexp" }
            if failIfNoneMatchesRegexp.contains(where: { $0.matches(record) }) { anyMatch = true }
        }
        if !failIfAllMatchRegexp.isEmpty && !allMatch { return "fail_if_all_match_regexp" }
        if !failIfNoneMatchesRegexp.isEmpty && !anyMatch { return "fail_if_none_matches_regexp" }
        return nil
    }
}

extension String {
    /// nil for the empty string: blackbox_exporter's "unset, so the default".
    var nonEmpty: String? { isEmpty ? nil : self }
}

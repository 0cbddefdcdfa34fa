import ReachCore
import ReachExporterProbes
import ReachExporterSystem
import ReachSystem

/// The `dns` settings of a module (blackbox_exporter 0.23 `config/config.go` DNSProbe): a
/// query for `query_name` (which must be set), type ANY and class IN unless said, recursion
/// desired, over UDP, and NOERROR the only valid answer code.
public struct DNSProberSettings: Hashable, Sendable {
    /// `validate_*_rrs`: each record of a section, in its text form, against the four lists.
    public struct RRValidator: Hashable, Sendable {
        public var failIfMatchesRegexp: [BlackboxRegex] = []
        public var failIfAllMatchRegexp: [BlackboxRegex] = []
        public var failIfNotMatchesRegexp: [BlackboxRegex] = []
        public var failIfNoneMatchesRegexp: [BlackboxRegex] = []
    }

    public var preferredIPProtocol = ExporterModule.IPProtocol.ip6
    public var ipProtocolFallback = true
    public var dnsOverTLS = false
    public var tlsConfig = TLSSettings()
    public var sourceIPAddress = ""
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

    static func parse(_ node: Node, _ reader: ConfigurationReader) throws(ConfigurationError) -> DNSProberSettings {
        var settings = DNSProberSettings()
        try reader.fields(node, at: "dns") { key, value throws(ConfigurationError) in
            let name = "dns.\(key)"
            switch key {
            case "preferred_ip_protocol": settings.preferredIPProtocol = try value.ipProtocol(name)
            case "ip_protocol_fallback": settings.ipProtocolFallback = try value.flag(name)
            case "dns_over_tls": settings.dnsOverTLS = try value.flag(name)
            case "tls_config": settings.tlsConfig = try TLSSettings.parse(value, at: name, reader)
            case "source_ip_address": settings.sourceIPAddress = try value.sourceAddress(name)
            case "transport_protocol": settings.transportProtocol = try value.choice(name, ["udp", "tcp"]).nonEmpty ?? "udp"
            case "query_class": settings.queryClass = try value.choice(name, DNSParameters.classNames).nonEmpty ?? "IN"
            case "query_name": settings.queryName = try value.domainName(name)
            case "query_type": settings.queryType = try value.choice(name, DNSParameters.typeNames).nonEmpty ?? "ANY"
            case "recursion_desired": settings.recursionDesired = try value.flag(name)
            case "valid_rcodes": settings.validRcodes = try rcodes(value, name)
            case "validate_answer_rrs": settings.validateAnswer = try validator(value, name, reader)
            case "validate_authority_rrs": settings.validateAuthority = try validator(value, name, reader)
            case "validate_additional_rrs": settings.validateAdditional = try validator(value, name, reader)
            default: return false
            }
            return true
        }
        // config.go DNSProbe.UnmarshalYAML.
        if settings.queryName.isEmpty { throw ConfigurationError(node.mark?.line, "dns: query name must be set for DNS module") }
        // dns.go fails every probe of such a module ("Expected transport protocol tcp for
        // DoT"); said once, at load, as for a type it does not know.
        if settings.dnsOverTLS && settings.transportProtocol != "tcp" && reader.prober == "dns" {
            throw ConfigurationError(node.mark?.line, "dns.dns_over_tls: needs transport_protocol: tcp")
        }
        return settings
    }

    /// Empty: NOERROR alone (`prober/dns.go`).
    private static func rcodes(_ node: Node, _ key: String) throws(ConfigurationError) -> [String] {
        let names = try node.list(key) { item throws(ConfigurationError) in try item.choice(key, DNSParameters.responseCodeNames) }
        return names.isEmpty ? ["NOERROR"] : names
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

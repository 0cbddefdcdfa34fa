import ReachCore
import ReachSystem
import Yams

/// A dns module's settings, blackbox_exporter 0.23's `dns` block (`config/config.go`
/// DNSProbe, its defaults: type ANY, class IN, recursion desired, UDP, rcode NOERROR).
/// What blackbox_exporter finds wrong only when it probes (an unknown type, class or rcode,
/// a bad regular expression, dns_over_tls over UDP) is refused here, when the file loads.
public struct DNSProberSettings: Hashable, Sendable {
    public var queryName = DNSName(labels: [])
    public var queryType: UInt16 = 255
    public var queryClass: UInt16 = 1
    public var recursionDesired = true
    public var transport = DNSExchange.Transport.udp
    public var sourceAddress: IPAddress?
    public var validRcodes = [0]
    public var validateAnswer = RecordValidator()
    public var validateAuthority = RecordValidator()
    public var validateAdditional = RecordValidator()

    public init() {}

    /// blackbox_exporter's DNSRRValidator: four lists of regular expressions over the records'
    /// text (`prober/dns.go` validRRs).
    public struct RecordValidator: Hashable, Sendable {
        public var failIfMatches: [String] = []
        public var failIfAllMatch: [String] = []
        public var failIfNotMatches: [String] = []
        public var failIfNoneMatches: [String] = []
        public init() {}
    }

    /// The module's `dns:` mapping, into `module` (which holds the IP protocol choice too).
    static func parse(_ node: Node, into module: inout ExporterModule) throws(ExporterConfiguration.Error) {
        guard let fields = node.mapping else { throw ExporterConfiguration.Error(node.mark?.line, "dns: expected a mapping") }
        var settings = DNSProberSettings()
        var hasName = false
        for (key, value) in fields {
            let line = value.mark?.line
            let name = key.string ?? "?"
            switch name {
            case "query_name":
                settings.queryName = try parse(text(value, name), line: line, name) { try DNSName.parse($0) }
                hasName = true
            case "query_type":
                settings.queryType = try lookUp(value, name, DNSParameters.type(named:), "a DNS type (A, AAAA, MX, SOA, ANY...)")
            case "query_class":
                settings.queryClass = try lookUp(value, name, DNSParameters.class(named:), "a DNS class (IN, CH, HS, NONE, ANY)")
            case "recursion_desired":
                settings.recursionDesired = try flag(value, name)
            case "transport_protocol":
                guard let chosen = DNSExchange.Transport(rawValue: value.string ?? "") else {
                    throw ExporterConfiguration.Error(line, "transport_protocol: '\(value.string ?? "?")' is neither udp nor tcp")
                }
                settings.transport = chosen
            case "source_ip_address":
                settings.sourceAddress = try parse(text(value, name), line: line, name) { try IPAddress.parse($0) }
            case "valid_rcodes":
                guard let codes = value.sequence else { throw ExporterConfiguration.Error(line, "valid_rcodes: expected a list") }
                var valid: [Int] = []
                for code in codes {
                    valid.append(try lookUp(code, name, DNSParameters.responseCode(named:), "an rcode (NOERROR, NXDOMAIN...)"))
                }
                settings.validRcodes = valid
            case "validate_answer_rrs": settings.validateAnswer = try validator(value, name)
            case "validate_authority_rrs": settings.validateAuthority = try validator(value, name)
            case "validate_additional_rrs": settings.validateAdditional = try validator(value, name)
            case "preferred_ip_protocol":
                guard let chosen = ExporterModule.IPProtocol(rawValue: value.string ?? "") else {
                    throw ExporterConfiguration.Error(line, "preferred_ip_protocol: '\(value.string ?? "?")' is neither ip4 nor ip6")
                }
                module.preferredIPProtocol = chosen
            case "ip_protocol_fallback":
                module.ipProtocolFallback = try flag(value, name)
            case "dns_over_tls", "tls_config":
                // DNS over TLS (RFC 7858) needs a TLS client, which this build of reach-exporter has not.
                throw ExporterConfiguration.Error(key.mark?.line, "\(name): DNS over TLS is not supported by this build")
            default:
                throw ExporterConfiguration.Error(key.mark?.line, "unsupported key '\(name)'")
            }
        }
        guard hasName else { throw ExporterConfiguration.Error(node.mark?.line, "dns: query_name must be set") }
        module.dns = settings
    }

    private static func text(_ value: Node, _ name: String) throws(ExporterConfiguration.Error) -> String {
        guard let text = value.string else { throw ExporterConfiguration.Error(value.mark?.line, "\(name): expected a string") }
        return text
    }

    private static func flag(_ value: Node, _ name: String) throws(ExporterConfiguration.Error) -> Bool {
        guard let flag = value.bool else { throw ExporterConfiguration.Error(value.mark?.line, "\(name): not true or false") }
        return flag
    }

    private static func parse<Value>(
        _ text: String, line: Int?, _ name: String, _ body: (String) throws -> Value
    ) throws(ExporterConfiguration.Error) -> Value {
        do {
            return try body(text)
        } catch {
            throw ExporterConfiguration.Error(line, "\(name): \(error)")
        }
    }

    private static func lookUp<Value>(
        _ value: Node, _ name: String, _ table: (String) -> Value?, _ expected: String
    ) throws(ExporterConfiguration.Error) -> Value {
        guard let text = value.string, let found = table(text) else {
            throw ExporterConfiguration.Error(value.mark?.line, "\(name): '\(value.string ?? "?")' is not \(expected)")
        }
        return found
    }

    private static func validator(_ node: Node, _ section: String) throws(ExporterConfiguration.Error) -> RecordValidator {
        guard let fields = node.mapping else { throw ExporterConfiguration.Error(node.mark?.line, "\(section): expected a mapping") }
        var validator = RecordValidator()
        for (key, value) in fields {
            let name = key.string ?? "?"
            guard let patterns = value.sequence else { throw ExporterConfiguration.Error(value.mark?.line, "\(name): expected a list") }
            var texts: [String] = []
            for pattern in patterns {
                let text = try text(pattern, name)
                guard RecordPattern.compile(text) != nil else {
                    throw ExporterConfiguration.Error(pattern.mark?.line, "\(name): not a regular expression: '\(text)'")
                }
                texts.append(text)
            }
            switch name {
            case "fail_if_matches_regexp": validator.failIfMatches = texts
            case "fail_if_all_match_regexp": validator.failIfAllMatch = texts
            case "fail_if_not_matches_regexp": validator.failIfNotMatches = texts
            case "fail_if_none_matches_regexp": validator.failIfNoneMatches = texts
            default: throw ExporterConfiguration.Error(key.mark?.line, "unsupported key '\(name)' in \(section)")
            }
        }
        return validator
    }
}

/// A validate_*_rrs pattern, searched anywhere in a record's text as Go's
/// `regexp.MatchString` does, over Unicode scalars as RE2 reads code points.
enum RecordPattern {
    static func compile(_ pattern: String) -> Regex<AnyRegexOutput>? {
        (try? Regex(pattern))?.matchingSemantics(.unicodeScalar)
    }

    static func matches(_ pattern: String, _ text: String) -> Bool {
        guard let regex = compile(pattern) else { return false }
        return (try? regex.firstMatch(in: text)) != nil
    }
}

extension DNSProberSettings.RecordValidator {
    /// blackbox_exporter's validRRs (`prober/dns.go`): whether `records` pass the four lists,
    /// and when not, which rule failed ("fail_if_matches_regexp" ...).
    func failure(of records: [String]) -> String? {
        if records.isEmpty && !failIfNotMatches.isEmpty { return "fail_if_not_matches_regexp" }
        if records.isEmpty && !failIfNoneMatches.isEmpty { return "fail_if_none_matches_regexp" }
        var (anyMatch, allMatch) = (false, true)
        for record in records {
            if failIfMatches.contains(where: { RecordPattern.matches($0, record) }) { return "fail_if_matches_regexp" }
            if failIfAllMatch.contains(where: { !RecordPattern.matches($0, record) }) { allMatch = false }
            if failIfNotMatches.contains(where: { !RecordPattern.matches($0, record) }) { return "fail_if_not_matches_regexp" }
            if failIfNoneMatches.contains(where: { RecordPattern.matches($0, record) }) { anyMatch = true }
        }
        if !failIfAllMatch.isEmpty && !allMatch { return "fail_if_all_match_regexp" }
        if !failIfNoneMatches.isEmpty && !anyMatch { return "fail_if_none_matches_regexp" }
        return nil
    }
}

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

    /// The classes miekg/dns knows by name (its StringToClass), RFC 1035 3.2.4 and RFC 2136.
    public static let classes: [String: UInt16] = ["IN": 1, "CS": 2, "CH": 3, "HS": 4, "NONE": 254, "ANY": 255]

    /// The types miekg/dns knows by name (its StringToType), with their numbers (IANA's DNS
    /// parameters registry).
    public static let types: [String: UInt16] = [
        "A": 1, "NS": 2, "MD": 3, "MF": 4, "CNAME": 5, "SOA": 6, "MB": 7, "MG": 8, "MR": 9, "NULL": 10, "PTR": 12, "HINFO": 13,
        "MINFO": 14, "MX": 15, "TXT": 16, "RP": 17, "AFSDB": 18, "X25": 19, "ISDN": 20, "RT": 21, "NSAP-PTR": 23, "SIG": 24,
        "KEY": 25, "PX": 26, "GPOS": 27, "AAAA": 28, "LOC": 29, "NXT": 30, "EID": 31, "NIMLOC": 32, "SRV": 33, "ATMA": 34,
        "NAPTR": 35, "KX": 36, "CERT": 37, "DNAME": 39, "OPT": 41, "APL": 42, "DS": 43, "SSHFP": 44, "RRSIG": 46, "NSEC": 47,
        "DNSKEY": 48, "DHCID": 49, "NSEC3": 50, "NSEC3PARAM": 51, "TLSA": 52, "SMIMEA": 53, "HIP": 55, "NINFO": 56, "RKEY": 57,
        "TALINK": 58, "CDS": 59, "CDNSKEY": 60, "OPENPGPKEY": 61, "CSYNC": 62, "ZONEMD": 63, "SVCB": 64, "HTTPS": 65, "SPF": 99,
        "UINFO": 100, "UID": 101, "GID": 102, "UNSPEC": 103, "NID": 104, "L32": 105, "L64": 106, "LP": 107, "EUI48": 108,
        "EUI64": 109, "TKEY": 249, "TSIG": 250, "IXFR": 251, "AXFR": 252, "MAILB": 253, "MAILA": 254, "ANY": 255, "URI": 256,
        "CAA": 257, "AVC": 258, "TA": 32768, "DLV": 32769,
    ]

    /// The response codes miekg/dns knows by name (its StringToRcode; RFC 1035 4.1.1, RFC 2136,
    /// RFC 8945, RFC 7873).
    public static let rcodes: [String: UInt16] = [
        "NOERROR": 0, "FORMERR": 1, "SERVFAIL": 2, "NXDOMAIN": 3, "NOTIMP": 4, "REFUSED": 5, "YXDOMAIN": 6, "YXRRSET": 7,
        "NXRRSET": 8, "NOTAUTH": 9, "NOTZONE": 10, "BADSIG": 16, "BADVERS": 16, "BADKEY": 17, "BADTIME": 18, "BADMODE": 19,
        "BADNAME": 20, "BADALG": 21, "BADTRUNC": 22, "BADCOOKIE": 23,
    ]

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
            case "query_class": settings.queryClass = try value.choice(name, classes.keys.sorted()).nonEmpty ?? "IN"
            case "query_name": settings.queryName = try value.text(name)
            case "query_type": settings.queryType = try value.choice(name, types.keys.sorted()).nonEmpty ?? "ANY"
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
        return settings
    }

    /// Empty: NOERROR alone (`prober/dns.go`).
    private static func rcodes(_ node: Node, _ key: String) throws(ConfigurationError) -> [String] {
        let names = try node.list(key) { item throws(ConfigurationError) in try item.choice(key, rcodes.keys.sorted()) }
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

extension String {
    /// nil for the empty string: blackbox_exporter's "unset, so the default".
    var nonEmpty: String? { isEmpty ? nil : self }
}

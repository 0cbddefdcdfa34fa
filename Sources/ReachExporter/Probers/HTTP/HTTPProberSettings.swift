import ReachExporterSystem
import ReachSystem

/// The `http` settings of a module (blackbox_exporter 0.23 `config/config.go` HTTPProbe),
/// with its defaults: any 2xx, GET, the IP protocol ip6 with a fallback, redirects followed.
public struct HTTPProberSettings: Hashable, Sendable, BlackboxSettings, AddressChoosing {
    /// `fail_if_header_matches` / `fail_if_header_not_matches`: a header's values against a regex.
    public struct HeaderMatch: Hashable, Sendable {
        public var header: String
        public var regexp: BlackboxRegex
        public var allowMissing = false
    }

    /// Empty: any 2xx (`prober/http.go`).
    public var validStatusCodes: [Int] = []
    /// Empty: any version.
    public var validHTTPVersions: [String] = []
    /// Its source address unused: blackbox_exporter 0.23's http prober has no such key (reach's
    /// source_interface it has).
    public var address = AddressSettings()
    public var skipResolvePhaseWithProxy = false
    public var failIfSSL = false
    public var failIfNotSSL = false
    public var method = "GET"
    public var headers: [HeaderField] = []
    public var failIfBodyMatchesRegexp: [BlackboxRegex] = []
    public var failIfBodyNotMatchesRegexp: [BlackboxRegex] = []
    public var failIfHeaderMatches: [HeaderMatch] = []
    public var failIfHeaderNotMatches: [HeaderMatch] = []
    public var body = ""
    public var client = HTTPClientSettings()
    /// "" (none), gzip, br, deflate or identity: the encoding asked for and decoded.
    public var compression = ""
    /// The body is read this far at most (units.Base2Bytes: "1MB" is 2^20 bytes); nil: no bound.
    public var bodySizeLimit: Int?
    /// blackbox_exporter 0.23 reads the deprecated no_follow_redirects into follow_redirects,
    /// whatever the order of the two; nil once read.
    var noFollowRedirects: Bool?

    public init() {}

    static let compressions = ["gzip", "br", "deflate", "identity"]

    /// The http prober's keys, in the debug output's order.
    static var keys: [ProberKey<Self>] {
        let named: [ProberKey<Self>] = [
            ProberKey(
                "valid_status_codes",
                read: { settings, node, key, _ throws(ConfigurationError) in
                    settings.validStatusCodes = try node.list(key) { code throws(ConfigurationError) in
                        try code.integer(key, in: 100...599)
                    }
                },
                shown: { DebugValue.numbers($0.validStatusCodes) }),
            ProberKey(
                "valid_http_versions",
                read: { settings, node, key, _ throws(ConfigurationError) in settings.validHTTPVersions = try node.texts(key) },
                shown: { DebugValue.list($0.validHTTPVersions) }),
            .preferredIPProtocol, .ipProtocolFallback, .sourceInterface,
            .flag("skip_resolve_phase_with_proxy", \.skipResolvePhaseWithProxy),
            .flag("fail_if_ssl", \.failIfSSL), .flag("fail_if_not_ssl", \.failIfNotSSL),
            ProberKey(
                "method", read: { settings, node, key, _ throws(ConfigurationError) in settings.method = try method(node, key) },
                shown: unlessDefault(\.method) { $0 }),
            .regexes("fail_if_body_matches_regexp", \.failIfBodyMatchesRegexp),
            .regexes("fail_if_body_not_matches_regexp", \.failIfBodyNotMatchesRegexp), .text("body", \.body),
        ]
        return named + HTTPClientSettings.keys.map { $0.within(\.client) } + [
            .choice("compression", \.compression, compressions),
            ProberKey(
                "body_size_limit",
                read: { settings, node, key, _ throws(ConfigurationError) in settings.bodySizeLimit = try byteCount(node, key) },
                shown: { $0.bodySizeLimit.map(String.init) }),
            ProberKey("no_follow_redirects") { settings, node, key, _ throws(ConfigurationError) in
                settings.noFollowRedirects = try node.flag(key)
            },
            ProberKey("headers") { settings, node, key, _ throws(ConfigurationError) in settings.headers = try node.pairs(key) },
            headerMatchKey("fail_if_header_matches", \.failIfHeaderMatches),
            headerMatchKey("fail_if_header_not_matches", \.failIfHeaderNotMatches),
        ]
    }

    static func parse(_ node: Node, _ reader: ConfigurationReader) throws(ConfigurationError) -> HTTPProberSettings {
        var settings = HTTPProberSettings()
        try reader.read(node, at: "http", into: &settings, keys)
        try settings.address.settle(node, at: "http")
        try settings.client.validate(line: node.mark?.line)
        if let noFollowRedirects = settings.noFollowRedirects { settings.client.followRedirects = !noFollowRedirects }
        settings.noFollowRedirects = nil
        try settings.checkAcceptEncoding(line: node.mark?.line)
        return settings
    }

    private static func headerMatchKey(_ name: String, _ path: WritableKeyPath<Self, [HeaderMatch]>) -> ProberKey<Self> {
        ProberKey(name) { settings, node, key, reader throws(ConfigurationError) in
            settings[keyPath: path] = try headerMatches(node, key, reader)
        }
    }

    /// An HTTP method is a token (RFC 9110, 9.1 and 5.6.2); Go's net/http refuses any other.
    private static func method(_ node: Node, _ key: String) throws(ConfigurationError) -> String {
        let text = try node.text(key)
        if text.isEmpty { return HTTPProberSettings().method }
        let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard text.allSatisfy(token.contains) else {
            throw ConfigurationError(node.mark?.line, "\(key): '\(text)' is not an HTTP method")
        }
        return text
    }

    private static func headerMatches(_ node: Node, _ key: String, _ reader: ConfigurationReader)
        throws(ConfigurationError) -> [HeaderMatch]
    {
        try node.list(key) { item throws(ConfigurationError) in
            var header = ""
            var regexp: BlackboxRegex?
            var allowMissing = false
            try reader.fields(item, at: key) { field, value throws(ConfigurationError) in
                switch field {
                case "header": header = try value.text("\(key).header")
                case "regexp": regexp = try value.regex("\(key).regexp")
                case "allow_missing": allowMissing = try value.flag("\(key).allow_missing")
                default: return false
                }
                return true
            }
            // config.go HeaderMatch.UnmarshalYAML.
            if header.isEmpty {
                throw ConfigurationError(item.mark?.line, "\(key): header name must be set for HTTP header matchers")
            }
            guard let regexp, !regexp.pattern.isEmpty else {
                throw ConfigurationError(item.mark?.line, "\(key): regexp must be set for HTTP header matchers")
            }
            return HeaderMatch(header: header, regexp: regexp, allowMissing: allowMissing)
        }
    }

    /// alecthomas/units Base2Bytes: a whole number of bytes, or one with B, KB (or KiB), MB,
    /// GB, TB, PB, each 1024 times the last. Negative: no bound (config.go).
    static func byteCount(_ node: Node, _ key: String) throws(ConfigurationError) -> Int? {
        if let number = node.int { return number < 0 ? nil : number }
        let text = try node.text(key)
        if text.isEmpty { return nil }
        let units: [(String, Int)] = [("PiB", 50), ("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10), ("PB", 50), ("TB", 40), ("GB", 30),
                                      ("MB", 20), ("KB", 10), ("B", 0)]
        for (suffix, shift) in units where text.hasSuffix(suffix) {
            let digits = text.dropLast(suffix.count)
            guard let number = Int(digits), number >= 0, digits.allSatisfy(\.isASCII) else { break }
            let (bytes, overflow) = number.multipliedReportingOverflow(by: 1 << shift)
            return overflow ? nil : bytes
        }
        throw ConfigurationError(node.mark?.line, "\(key): '\(text)' is not a size (1024, 512KB, 10MB)")
    }

    /// config.go's isCompressionAcceptEncodingValid: an Accept-Encoding header must admit the
    /// compression asked for.
    private func checkAcceptEncoding(line: Int?) throws(ConfigurationError) {
        guard !compression.isEmpty, let header = headers.first(where: { $0.name.lowercased() == "accept-encoding" }), !header.value.isEmpty
        else { return }
        var choices: [(encoding: String, quality: Double)] = []
        for part in header.value.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: ";", omittingEmptySubsequences: false)
            let encoding = String(pieces[0]).trimmingASCIISpaces
            var quality = 1.0
            if pieces.count > 1, let last = pieces.last {
                var text = String(last).trimmingASCIISpaces
                if text.hasPrefix("q=") { text.removeFirst(2) }
                quality = Double(text) ?? 0
            }
            choices.append((encoding, quality))
        }
        let ranked = choices.enumerated().sorted { ($0.element.quality, -$0.offset) > ($1.element.quality, -$1.offset) }.map(\.element)
        if let match = ranked.first(where: { $0.encoding == compression || $0.encoding == "*" }), match.quality > 0 { return }
        let setting = "\"\(header.name): \(header.value)\", \"compression: \(compression)\""
        throw ConfigurationError(line, "invalid configuration \(setting)")
    }
}

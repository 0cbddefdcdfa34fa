import ReachSystem

/// The module as `&debug=true` shows it: blackbox_exporter marshals its Module with yaml.v3
/// (four-space indents, empty values left out, `omitempty`); the same here for the keys each
/// prober has, its settings' empty values left out, `true` defaults kept as there.
extension ExporterModule {
    public var yaml: String {
        var out = "prober: \(prober.rawValue)\n"
        if let timeout { out += "timeout: \(Self.goDuration(timeout))\n" }
        out += Self.block("http", httpFields)
        out += Self.block("tcp", tcpFields)
        out += Self.block("icmp", icmpFields)
        out += Self.block("dns", dnsFields)
        if grpc != GRPCProberSettings.unset { out += Self.block("grpc", grpcFields) }
        return out
    }

    private typealias Field = (key: String, value: String?)

    private var httpFields: [Field] {
        [
            ("valid_status_codes", Self.numbers(http.validStatusCodes)),
            ("valid_http_versions", Self.list(http.validHTTPVersions)),
            ("preferred_ip_protocol", http.preferredIPProtocol == .ip6 ? nil : http.preferredIPProtocol.rawValue),
            ("ip_protocol_fallback", Self.flag(http.ipProtocolFallback)),
            ("skip_resolve_phase_with_proxy", Self.flag(http.skipResolvePhaseWithProxy)),
            ("fail_if_ssl", Self.flag(http.failIfSSL)),
            ("fail_if_not_ssl", Self.flag(http.failIfNotSSL)),
            ("method", http.method == "GET" ? nil : http.method),
            ("fail_if_body_matches_regexp", Self.list(http.failIfBodyMatchesRegexp.map(\.pattern))),
            ("fail_if_body_not_matches_regexp", Self.list(http.failIfBodyNotMatchesRegexp.map(\.pattern))),
            ("body", Self.text(http.body)),
            ("proxy_url", Self.text(http.client.proxyURL)),
            ("follow_redirects", String(http.client.followRedirects)),
            ("enable_http2", String(http.client.enableHTTP2)),
            ("compression", Self.text(http.compression)),
            ("body_size_limit", http.bodySizeLimit.map(String.init)),
        ]
    }

    private var tcpFields: [Field] {
        [
            ("preferred_ip_protocol", tcp.preferredIPProtocol == .ip6 ? nil : tcp.preferredIPProtocol.rawValue),
            ("ip_protocol_fallback", Self.flag(tcp.ipProtocolFallback)),
            ("source_ip_address", Self.text(tcp.sourceIPAddress)),
            ("tls", Self.flag(tcp.tls)),
        ]
    }

    private var icmpFields: [Field] {
        [
            ("preferred_ip_protocol", icmp.preferredIPProtocol == .ip6 ? nil : icmp.preferredIPProtocol.rawValue),
            ("ip_protocol_fallback", Self.flag(icmp.ipProtocolFallback)),
            ("source_ip_address", Self.text(icmp.sourceIPAddress)),
            ("payload_size", icmp.payloadSize == 0 ? nil : String(icmp.payloadSize)),
            ("dont_fragment", Self.flag(icmp.dontFragment)),
            ("ttl", String(icmp.ttl)),
        ]
    }

    private var dnsFields: [Field] {
        [
            ("preferred_ip_protocol", dns.preferredIPProtocol == .ip6 ? nil : dns.preferredIPProtocol.rawValue),
            ("ip_protocol_fallback", Self.flag(dns.ipProtocolFallback)),
            ("dns_over_tls", Self.flag(dns.dnsOverTLS)),
            ("source_ip_address", Self.text(dns.sourceIPAddress)),
            ("transport_protocol", dns.transportProtocol == "udp" ? nil : dns.transportProtocol),
            ("query_class", dns.queryClass == "IN" ? nil : dns.queryClass),
            ("query_name", Self.text(dns.queryName)),
            ("query_type", dns.queryType == "ANY" ? nil : dns.queryType),
            ("recursion_desired", Self.flag(dns.recursionDesired)),
            ("valid_rcodes", dns.validRcodes == ["NOERROR"] ? nil : Self.list(dns.validRcodes)),
        ]
    }

    private var grpcFields: [Field] {
        [
            ("service", Self.text(grpc.service)),
            ("tls", Self.flag(grpc.tls)),
            ("ip_protocol_fallback", Self.flag(grpc.ipProtocolFallback)),
            ("preferred_ip_protocol", grpc.preferredIPProtocol == .ip6 ? nil : grpc.preferredIPProtocol.rawValue),
        ]
    }

    private static func block(_ name: String, _ fields: [Field]) -> String {
        let present = fields.compactMap { field in field.value.map { "    \(field.key): \($0)\n" } }
        return present.isEmpty ? "" : "\(name):\n" + present.joined()
    }

    private static func flag(_ value: Bool) -> String? { value ? "true" : nil }

    /// A string as yaml.v3 writes it: plain when YAML would read it back as that string.
    private static func text(_ value: String) -> String? {
        guard !value.isEmpty else { return nil }
        let plain = value.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || "./_-".unicodeScalars.contains($0)
        }
        return plain && value.first?.isLetter == true ? value : JSONString.quoted(value)
    }

    private static func numbers(_ values: [Int]) -> String? {
        values.isEmpty ? nil : "[" + values.map(String.init).joined(separator: ", ") + "]"
    }

    private static func list(_ values: [String]) -> String? {
        values.isEmpty ? nil : "[" + values.map { text($0) ?? "\"\"" }.joined(separator: ", ") + "]"
    }

    /// Go's Duration.String for whole milliseconds and up: "5s", "1m30s", "500ms".
    static func goDuration(_ span: TimeSpan) -> String {
        let milliseconds = span.milliseconds
        if milliseconds < 1000 { return "\(milliseconds)ms" }
        var text = ""
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds / 60_000 % 60
        let seconds = Double(milliseconds % 60_000) / 1000
        if hours > 0 { text += "\(hours)h" }
        if hours > 0 || minutes > 0 { text += "\(minutes)m" }
        let whole = seconds.rounded(.towardZero) == seconds
        return text + (whole ? "\(Int(seconds))s" : "\(seconds)s")
    }
}

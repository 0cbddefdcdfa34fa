import ReachSystem

extension ExporterConfiguration {
    /// What reach-exporter runs of blackbox_exporter's settings: "prober.key" (each key of a
    /// settings block on its own, "http.tls_config.ca_file") or "prober.key=value" for one value
    /// alone. Any other key of a module's own prober, set to anything but empty, is refused at
    /// load with its line: a module never silently means less than it says. A prober that
    /// gains a behaviour gains its line here. Which probers run at all is
    /// `ExporterModule.Prober`'s cases.
    static let implemented = Set(
        [
            "http.valid_status_codes",
            "http.preferred_ip_protocol",
            "http.ip_protocol_fallback",
            "http.follow_redirects",
            "http.no_follow_redirects",
            "http.valid_http_versions",
            "http.method",
            "http.headers",
            "http.body",
            "http.body_size_limit",
            "http.compression",
            "http.fail_if_ssl",
            "http.fail_if_not_ssl",
            "http.fail_if_body_matches_regexp",
            "http.fail_if_body_not_matches_regexp",
            "http.skip_resolve_phase_with_proxy",
            "http.bearer_token",
            "http.bearer_token_file",
            "http.proxy_url",
            "http.enable_http2",
            "http.oauth2.client_id",
            "http.oauth2.client_secret",
            "http.oauth2.client_secret_file",
            "http.oauth2.scopes",
            "http.oauth2.token_url",
            "http.oauth2.endpoint_params",
            "http.oauth2.proxy_url",
            "tcp.preferred_ip_protocol",
            "tcp.ip_protocol_fallback",
            "tcp.source_ip_address",
            "tcp.query_response",
            "tcp.query_response.expect",
            "tcp.query_response.send",
            "tcp.query_response.starttls",
            "tcp.tls",
            "icmp.preferred_ip_protocol",
            "icmp.ip_protocol_fallback",
            "icmp.source_ip_address",
            "icmp.payload_size",
            "icmp.dont_fragment",
            "icmp.ttl",
            "dns.preferred_ip_protocol",
            "dns.ip_protocol_fallback",
            "dns.source_ip_address",
            "dns.transport_protocol",
            "dns.query_class",
            "dns.query_name",
            "dns.query_type",
            "dns.recursion_desired",
            "dns.valid_rcodes",
            "dns.dns_over_tls",
            "grpc.service",
            "grpc.preferred_ip_protocol",
            "grpc.ip_protocol_fallback",
            "grpc.tls",
        ] + tlsKeys + headerMatchKeys + credentialKeys + dnsValidationKeys)

    /// Each tls_config that a TLS client reads.
    private static let tlsBlocks = ["http.tls_config", "http.oauth2.tls_config", "tcp.tls_config", "dns.tls_config", "grpc.tls_config"]

    private static let tlsKeys: [String] = tlsBlocks.flatMap { (block: String) -> [String] in
        ["ca_file", "cert_file", "key_file", "server_name", "insecure_skip_verify", "min_version"].map { "\(block).\($0)" }
    }

    private static let headerMatchKeys: [String] = ["fail_if_header_matches", "fail_if_header_not_matches"].flatMap {
        (key: String) -> [String] in ["", ".header", ".regexp", ".allow_missing"].map { "http.\(key)\($0)" }
    }

    private static let credentialKeys: [String] = [
        "basic_auth.username", "basic_auth.password", "basic_auth.password_file", "authorization.type", "authorization.credentials",
        "authorization.credentials_file",
    ].map { "http.\($0)" }

    private static let dnsValidationKeys: [String] = ["answer", "authority", "additional"].flatMap { (section: String) -> [String] in
        ["matches", "all_match", "not_matches", "none_matches"].map { "dns.validate_\(section)_rrs.fail_if_\($0)_regexp" }
    }
}

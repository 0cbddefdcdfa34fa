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
            "http.method=GET",
            "http.fail_if_ssl=false",
            "http.fail_if_not_ssl=false",
            "http.enable_http2=true",
            "http.tls_config.insecure_skip_verify=false",
            "tcp.preferred_ip_protocol",
            "tcp.ip_protocol_fallback",
            "tcp.source_ip_address",
            "tcp.query_response",
            "tcp.query_response.expect",
            "tcp.query_response.send",
            "tcp.query_response.starttls=false",
            "tcp.tls=false",
            "tcp.tls_config.insecure_skip_verify=false",
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
            "dns.dns_over_tls=false",
            "dns.tls_config.insecure_skip_verify=false",
            "grpc.service",
            "grpc.preferred_ip_protocol",
            "grpc.ip_protocol_fallback",
            "grpc.tls=false",
            "grpc.tls_config.insecure_skip_verify=false",
        ]
            + ["answer", "authority", "additional"].flatMap { section in
                ["matches", "all_match", "not_matches", "none_matches"].map { "dns.validate_\(section)_rrs.fail_if_\($0)_regexp" }
            })
}

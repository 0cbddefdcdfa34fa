import ReachSystem

extension ExporterConfiguration {
    /// What reach-exporter runs of blackbox_exporter's settings: "prober.key" (each key of a
    /// settings block on its own, "http.tls_config.ca_file") or "prober.key=value" for one value
    /// alone. Any other key of a module's own prober, set to anything but empty, is refused at
    /// load with its line: a module never silently means less than it says. A prober that
    /// gains a behaviour gains its line here. Which probers run at all is
    /// `ExporterModule.Prober`'s cases.
    static let implemented: Set<String> = [
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
        "tcp.tls=false",
        "tcp.tls_config.insecure_skip_verify=false",
        "icmp.preferred_ip_protocol",
        "icmp.ip_protocol_fallback",
    ]
}

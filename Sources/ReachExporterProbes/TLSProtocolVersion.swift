/// A TLS version by the name both of Prometheus's configurations give it (`min_version:
/// TLS12`): prometheus/common's TLSVersions (`config/http_config.go`) for a probe's
/// tls_config, exporter-toolkit's (`web/tls_config.go`) for the exporter's own
/// tls_server_config. The one place these names meet BoringSSL's versions, for the probes'
/// client and the exporter's server alike.
public enum TLSProtocolVersion: String, Hashable, Sendable, Comparable, CaseIterable {
    case tls10 = "TLS10"
    case tls11 = "TLS11"
    case tls12 = "TLS12"
    case tls13 = "TLS13"

    public static func < (left: TLSProtocolVersion, right: TLSProtocolVersion) -> Bool {
        allCases.firstIndex(of: left)! < allCases.firstIndex(of: right)!
    }

    /// "TLS 1.3": the name blackbox_exporter's getTLSVersion (`prober/tls.go`) gives a
    /// session's version in probe_tls_version_info.
    var goName: String {
        switch self {
        case .tls10: "TLS 1.0"
        case .tls11: "TLS 1.1"
        case .tls12: "TLS 1.2"
        case .tls13: "TLS 1.3"
        }
    }
}

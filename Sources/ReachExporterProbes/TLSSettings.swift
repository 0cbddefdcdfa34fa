/// `tls_config` (prometheus/common `config/http_config.go` TLSConfig, as blackbox_exporter
/// 0.23 links it): how a probe's TLS client trusts and names the server, and what it shows
/// of itself. Files are named here and read when the connection is made, as there (a file
/// that cannot be read fails the probe, not the load: Debian's example.yml names a
/// /certs/my_cert.crt that no machine has). blackbox.yml's form is read in ReachExporter.
public struct TLSSettings: Hashable, Sendable {
    /// PEM roots trusted instead of the system's; "": the system's, or those SSL_CERT_FILE
    /// and SSL_CERT_DIR name (EnvironmentTrustRoots).
    public var caFile = ""
    /// A client certificate and its key, both PEM, presented when the server asks; "": none.
    public var certFile = ""
    public var keyFile = ""
    /// The name sent by SNI and checked in the certificate; "": the target's host.
    public var serverName = ""
    public var insecureSkipVerify = false
    /// nil: TLS 1.2, Go's crypto/tls client default since Go 1.18 (`crypto/tls/common.go`).
    public var minVersion: TLSProtocolVersion?
    /// ALPN's offer (RFC 7301), in order of preference: ["h2", "http/1.1"] when the http
    /// prober may speak HTTP/2, as Go's http2.ConfigureTransports offers; none otherwise.
    public var applicationProtocols: [String] = []

    public init() {}

    /// Why a setting cannot be used: its files unreadable or not PEM.
    public struct Problem: Error, Equatable, Sendable {
        public var key: String
        public var message: String
    }
}

import ReachExporterSystem
import ReachSystem

/// `tls_config` (prometheus/common `config/http_config.go` TLSConfig, as blackbox_exporter
/// 0.23 links it): how a TLS connection is checked. Files are named here and read when the
/// connection is made, as there (a file that cannot be read fails the probe, not the load:
/// Debian's example.yml names a /certs/my_cert.crt that no machine has).
public struct TLSSettings: Hashable, Sendable {
    public enum Version: String, Hashable, Sendable, CaseIterable {
        case tls10 = "TLS10"
        case tls11 = "TLS11"
        case tls12 = "TLS12"
        case tls13 = "TLS13"
    }

    public var caFile = ""
    public var certFile = ""
    public var keyFile = ""
    public var serverName = ""
    public var insecureSkipVerify = false
    /// nil: the TLS library's default (Go's crypto/tls: TLS 1.2 for clients since Go 1.18).
    public var minVersion: Version?

    public init() {}

    static func parse(_ node: Node, at path: String, _ reader: ConfigurationReader) throws(ConfigurationError) -> TLSSettings {
        var settings = TLSSettings()
        try reader.fields(node, at: path) { key, value throws(ConfigurationError) in
            let name = "\(path).\(key)"
            switch key {
            case "ca_file": settings.caFile = try value.text(name)
            case "cert_file": settings.certFile = try value.text(name)
            case "key_file": settings.keyFile = try value.text(name)
            case "server_name": settings.serverName = try value.text(name)
            case "insecure_skip_verify": settings.insecureSkipVerify = try value.flag(name)
            case "min_version":
                let text = try value.choice(name, Version.allCases.map(\.rawValue))
                settings.minVersion = Version(rawValue: text)
            default: return false
            }
            return true
        }
        // common's NewTLSConfig refuses one without the other at every probe; said once here.
        if settings.certFile.isEmpty != settings.keyFile.isEmpty {
            throw ConfigurationError(node.mark?.line, "\(path): cert_file and key_file must be configured together")
        }
        return settings
    }
}

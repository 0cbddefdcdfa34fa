import ReachExporterProbes
import ReachExporterSystem
import ReachSystem

/// `tls_config`'s blackbox.yml form (prometheus/common `config/http_config.go` TLSConfig);
/// the settings themselves, and the TLS client they make, are ReachExporterProbes'.
extension TLSSettings {
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
                let text = try value.choice(name, TLSProtocolVersion.allCases.map(\.rawValue))
                settings.minVersion = TLSProtocolVersion(rawValue: text)
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

import ReachCommandLine
import ReachCore
import ReachExporterProbes
import ReachExporterSystem
import ReachSystem

/// `--web.config.file`: Prometheus exporter-toolkit's web configuration (v0.8, as
/// blackbox_exporter 0.23 links it; its `web/tls_config.go` and `web/handler.go`).
/// `basic_auth_users` asks every request for a user and password, checked against the
/// user's bcrypt hash; `tls_server_config` serves the exporter over TLS;
/// `http_server_config.headers` adds its few allowed headers to every answer.
/// exporter-toolkit reads the file again for each request and each TLS handshake (and not
/// on SIGHUP): reach-exporter does the same.
public struct WebConfiguration: Sendable, Equatable {
    /// User names and their bcrypt hashes, in the file's order.
    public var basicAuthUsers: [HeaderField] = []
    public var http2 = true
    /// `http_server_config.headers`, set on every answer.
    public var headers: [HeaderField] = []
    /// nil: plain HTTP (no cert_file, key_file, client_auth_type nor client_ca_file).
    public var tls: TLSServer?

    public init() {}

    /// exporter-toolkit's TLSStruct, checked as its ConfigToTLSConfig checks it; the files'
    /// paths already joined with the configuration file's directory.
    public struct TLSServer: Sendable, Equatable {
        public var certificateFile = ""
        public var keyFile = ""
        public var clientAuth = ClientAuth.noClientCert
        public var clientCAFile: String?
        public var minimumVersion = TLSProtocolVersion.tls12
        public var maximumVersion = TLSProtocolVersion.tls13
        /// IANA code points (RFC 8446 B.4, RFC 5246 A.5), in the file's order; empty: the library's.
        public var cipherSuites: [UInt16] = []
    }

    /// Go's crypto/tls ClientAuthType, by the names exporter-toolkit reads.
    public enum ClientAuth: String, Sendable, Equatable, CaseIterable {
        case noClientCert = "NoClientCert"
        case requestClientCert = "RequestClientCert"
        case requireAnyClientCert = "RequireAnyClientCert"
        case verifyClientCertIfGiven = "VerifyClientCertIfGiven"
        case requireAndVerifyClientCert = "RequireAndVerifyClientCert"

        /// Whether a certificate is asked of the client at all.
        public var asks: Bool { self != .noClientCert }
        /// Whether a client without one is refused.
        public var requires: Bool { self == .requireAnyClientCert || self == .requireAndVerifyClientCert }
        /// Whether the certificate given is checked against client_ca_file.
        public var verifies: Bool { self == .verifyClientCertIfGiven || self == .requireAndVerifyClientCert }
    }

    /// Go's crypto/tls cipher suite names (CipherSuites and InsecureCipherSuites) that
    /// BoringSSL also serves, and their code points (IANA's TLS Cipher Suites registry).
    static let cipherSuiteCodes: [String: UInt16] = [
        "TLS_RSA_WITH_AES_128_CBC_SHA": 0x002F, "TLS_RSA_WITH_AES_256_CBC_SHA": 0x0035, "TLS_RSA_WITH_AES_128_GCM_SHA256": 0x009C,
        "TLS_RSA_WITH_AES_256_GCM_SHA384": 0x009D, "TLS_AES_128_GCM_SHA256": 0x1301, "TLS_AES_256_GCM_SHA384": 0x1302,
        "TLS_CHACHA20_POLY1305_SHA256": 0x1303, "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA": 0xC009,
        "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA": 0xC00A, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA": 0xC013,
        "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA": 0xC014, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256": 0xC02B,
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384": 0xC02C, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256": 0xC02F,
        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384": 0xC030, "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256": 0xCCA8,
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256": 0xCCA9,
    ]

    /// exporter-toolkit's extraHTTPHeaders: the only headers http_server_config may set, and
    /// the values of those that have a closed list.
    static let allowedHeaders: [String: [String]] = [
        "Strict-Transport-Security": [], "X-Content-Type-Options": ["nosniff"], "X-Frame-Options": ["deny", "sameorigin"],
        "X-XSS-Protection": [], "Content-Security-Policy": [],
    ]

    /// exporter-toolkit's answer to a user it does not know is a check against this fixed
    /// hash all the same, so that the time taken does not say which users exist.
    static let absentUserHash = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi"

    /// The configuration at `path`, or why it cannot be used (its name and one line).
    public static func read(_ path: String) throws(ExporterConfigurationFile.Failure) -> WebConfiguration {
        let bytes = try contents(path)
        do {
            return try parse(String(decoding: bytes, as: UTF8.self), directory: directory(of: path))
        } catch {
            throw ExporterConfigurationFile.Failure(file: path, error.message)
        }
    }

    /// The bytes of the file at `path` (the configuration, a certificate, a key), or why not.
    public static func contents(_ path: String) throws(ExporterConfigurationFile.Failure) -> [UInt8] {
        switch FileContents.read(path, limit: ExporterConfigurationFile.limit) {
        case .failure(let errno): throw ExporterConfigurationFile.Failure(file: path, "\(errno)")
        case .success(let bytes): return bytes
        }
    }

    /// The directory relative file names are read from (Prometheus common's config.JoinDir).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    public static func parse(_ text: String, directory: String = ".") throws(ExporterConfiguration.Error) -> WebConfiguration {
        let root: Node?
        do {
            root = try YAMLNode.parse(Array(text.utf8))
        } catch {
            throw ConfigurationError(error.line, error.message)
        }
        var configuration = WebConfiguration()
        guard let root else { return configuration }
        let reader = ConfigurationReader(prober: "")
        try reader.fields(root, at: "") { key, value throws(ConfigurationError) in
            switch key {
            case "tls_server_config": configuration.tls = try tlsServer(value, reader, directory: directory)
            case "http_server_config":
                try reader.fields(value, at: key) { field, setting throws(ConfigurationError) in
                    switch field {
                    case "http2": configuration.http2 = try setting.flag("\(key).http2")
                    case "headers": configuration.headers = try headers(setting)
                    default: return false
                    }
                    return true
                }
            case "basic_auth_users": configuration.basicAuthUsers = try users(value)
            default: return false
            }
            return true
        }
        return configuration
    }

    /// exporter-toolkit's TLSStruct, refused as its ConfigToTLSConfig refuses it; nil when it
    /// names no file and no client authentication (plain HTTP, errNoTLSConfig there).
    private static func tlsServer(_ node: Node, _ reader: ConfigurationReader, directory: String) throws(ConfigurationError)
        -> TLSServer?
    {
        var tls = TLSServer()
        var named = false
        func version(_ value: Node, _ key: String) throws(ConfigurationError) -> TLSProtocolVersion {
            let text = try value.text("tls_server_config.\(key)")
            guard let version = TLSProtocolVersion(rawValue: text) else {
                throw ConfigurationError(value.mark?.line, "tls_server_config.\(key): unknown TLS version: \(PrintableText.ascii(text))")
            }
            return version
        }
        try reader.fields(node, at: "tls_server_config") { key, value throws(ConfigurationError) in
            let path = "tls_server_config.\(key)"
            switch key {
            case "cert_file": tls.certificateFile = joined(directory, try value.text(path))
            case "key_file": tls.keyFile = joined(directory, try value.text(path))
            case "client_ca_file":
                let file = try value.text(path)
                tls.clientCAFile = file.isEmpty ? nil : joined(directory, file)
            case "client_auth_type":
                let text = try value.text(path)
                named = named || !text.isEmpty
                // "RequireClientCert" is exporter-toolkit's older name, still read.
                let name = text.isEmpty ? "NoClientCert" : text == "RequireClientCert" ? "RequireAnyClientCert" : text
                guard let mode = ClientAuth(rawValue: name) else {
                    throw ConfigurationError(value.mark?.line, "\(path): Invalid ClientAuth: \(PrintableText.ascii(text))")
                }
                tls.clientAuth = mode
            case "min_version": tls.minimumVersion = try version(value, key)
            case "max_version": tls.maximumVersion = try version(value, key)
            case "cipher_suites":
                tls.cipherSuites = try value.list(path) { item throws(ConfigurationError) in
                    let name = try item.text(path)
                    guard let code = cipherSuiteCodes[name] else {
                        throw ConfigurationError(item.mark?.line, "\(path): unknown cipher: \(PrintableText.ascii(name))")
                    }
                    return code
                }
            case "curve_preferences":
                if !(try value.texts(path)).isEmpty {
                    throw ConfigurationError(value.mark?.line, "\(path): not yet supported by reach-exporter")
                }
            case "prefer_server_cipher_suites": _ = try value.flag(path)
            default: return false
            }
            return true
        }
        let line = node.mark?.line
        guard !tls.certificateFile.isEmpty || !tls.keyFile.isEmpty || named || tls.clientCAFile != nil else { return nil }
        if tls.certificateFile.isEmpty { throw ConfigurationError(line, "tls_server_config: missing cert_file") }
        if tls.keyFile.isEmpty { throw ConfigurationError(line, "tls_server_config: missing key_file") }
        if tls.clientCAFile != nil, !tls.clientAuth.asks {
            throw ConfigurationError(line, "tls_server_config: Client CA's have been configured without a Client Auth Policy")
        }
        if tls.minimumVersion > tls.maximumVersion {
            throw ConfigurationError(line, "tls_server_config: min_version is above max_version")
        }
        return tls
    }

    /// Prometheus common's config.JoinDir: a relative file name is the configuration's directory's.
    static func joined(_ directory: String, _ file: String) -> String {
        file.isEmpty || file.hasPrefix("/") ? file : (directory.hasSuffix("/") ? directory : directory + "/") + file
    }

    /// exporter-toolkit's validateHeaderConfig: only its few headers, some with closed values.
    private static func headers(_ node: Node) throws(ConfigurationError) -> [HeaderField] {
        let headers = try node.pairs("http_server_config.headers")
        for header in headers {
            guard let values = allowedHeaders[header.name] else {
                throw ConfigurationError(
                    node.mark?.line, "http_server_config.headers: HTTP header \"\(header.name)\" can not be configured")
            }
            if !values.isEmpty, !values.contains(header.value) {
                throw ConfigurationError(
                    node.mark?.line,
                    "http_server_config.headers: invalid value for \(header.name). Expected one of: \(values.joined(separator: ", ")), "
                        + "but got: \(PrintableText.ascii(header.value))")
            }
        }
        return headers
    }

    /// Each a bcrypt hash (`bcrypt.Cost` refuses any other at load in exporter-toolkit).
    private static func users(_ node: Node) throws(ConfigurationError) -> [HeaderField] {
        let users = try node.pairs("basic_auth_users")
        for user in users where !isBcrypt(user.value) {
            throw ConfigurationError(node.mark?.line, "basic_auth_users.\(user.name): not a bcrypt hash ($2y$, $2b$ or $2a$)")
        }
        return users
    }

    static func isBcrypt(_ hash: String) -> Bool {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, hash.hasPrefix("$2y$") || hash.hasPrefix("$2b$") || hash.hasPrefix("$2a$"), bytes[6] == UInt8(ascii: "$"),
            let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)), (4...31).contains(cost)
        else { return false }
        return true
    }

    /// Whether a request with this `Authorization` header may go on: always without users;
    /// with them, only with Basic credentials (RFC 7617) of a user whose hash they match.
    public func authorizes(_ authorization: String?) -> Bool {
        guard !basicAuthUsers.isEmpty else { return true }
        guard let (user, password) = authorization.flatMap(Self.basicCredentials) else { return false }
        let known = basicAuthUsers.first { $0.name == user }
        let matches = PasswordHash.verify(password, against: known?.value ?? Self.absentUserHash)
        return known != nil && matches
    }

    /// `Basic base64(user:password)`, as Go's Request.BasicAuth reads it.
    static func basicCredentials(_ header: String) -> (String, String)? {
        guard header.count > 6, header.prefix(6).lowercased() == "basic " else { return nil }
        guard let decoded = Base64.decoded(header.dropFirst(6)), let text = String(validating: decoded, as: UTF8.self),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}

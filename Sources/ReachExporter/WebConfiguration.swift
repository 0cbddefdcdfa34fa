import ReachCommandLine
import ReachExporterSystem
import ReachSystem

/// `--web.config.file`: Prometheus exporter-toolkit's web configuration (v0.8, as
/// blackbox_exporter 0.23 links it; its `web/tls_config.go` and `web/handler.go`).
/// `basic_auth_users` asks every request for a user and password, checked against the
/// user's bcrypt hash; `tls_server_config` is read, and refused while the exporter serves
/// only plain HTTP; `http_server_config` is read.
public struct WebConfiguration: Sendable, Equatable {
    /// User names and their bcrypt hashes, in the file's order.
    public var basicAuthUsers: [HeaderField] = []
    public var http2 = true

    public init() {}

    /// exporter-toolkit's answer to a user it does not know is a check against this fixed
    /// hash all the same, so that the time taken does not say which users exist.
    static let absentUserHash = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi"

    /// The configuration at `path`, or why it cannot be used (its name and one line).
    public static func read(_ path: String) throws(ExporterConfigurationFile.Failure) -> WebConfiguration {
        let shown = PrintableText.ascii(path)
        switch FileContents.read(path, limit: ExporterConfigurationFile.limit) {
        case .failure(let errno):
            throw ExporterConfigurationFile.Failure(description: "\(shown): \(errno)")
        case .success(let bytes):
            do {
                return try parse(String(decoding: bytes, as: UTF8.self))
            } catch {
                throw ExporterConfigurationFile.Failure(description: "\(shown): \(error.message)")
            }
        }
    }

    public static func parse(_ text: String) throws(ExporterConfiguration.Error) -> WebConfiguration {
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
            case "tls_server_config": try tlsServer(value, reader)
            case "http_server_config":
                try reader.fields(value, at: key) { field, setting throws(ConfigurationError) in
                    switch field {
                    case "http2": configuration.http2 = try setting.flag("\(key).http2")
                    case "headers":
                        if !(try setting.pairs("\(key).headers")).isEmpty {
                            throw ConfigurationError(setting.mark?.line, "\(key).headers: not yet supported by reach-exporter")
                        }
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

    /// exporter-toolkit's TLSStruct: read whole; serving TLS is not here yet.
    private static func tlsServer(_ node: Node, _ reader: ConfigurationReader) throws(ConfigurationError) {
        let known = [
            "cert_file", "key_file", "client_auth_type", "client_ca_file", "cipher_suites", "curve_preferences", "min_version",
            "max_version", "prefer_server_cipher_suites",
        ]
        var certificate = ""
        try reader.fields(node, at: "tls_server_config") { key, value throws(ConfigurationError) in
            guard known.contains(key) else { return false }
            if key == "cert_file" || key == "key_file" { certificate += try value.text("tls_server_config.\(key)") }
            return true
        }
        // Without a certificate and key, exporter-toolkit serves plain HTTP as well.
        if !certificate.isEmpty {
            throw ConfigurationError(node.mark?.line, "tls_server_config: serving TLS is not yet supported by reach-exporter")
        }
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
        guard let decoded = Base64.decode(header.dropFirst(6)), let text = String(validating: decoded, as: UTF8.self),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}

/// RFC 4648's base64, padded, as Basic credentials carry it.
enum Base64 {
    static func decode(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        var padding = 0
        for byte in text.utf8 {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: return nil
            }
            guard padding == 0 else { return nil }
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        guard text.utf8.count % 4 == 0, padding <= 2 else { return nil }
        return bytes
    }
}

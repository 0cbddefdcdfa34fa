import ReachCore
import ReachExporterProbes
import ReachExporterSystem
import ReachSystem

/// The HTTP client's settings blackbox_exporter's http prober takes inline (prometheus/common
/// `config/http_config.go` HTTPClientConfig, v0.37 as 0.23 links it): credentials, proxy,
/// TLS, redirects, HTTP/2.
public struct HTTPClientSettings: Hashable, Sendable, BlackboxSettings {
    public struct BasicAuth: Hashable, Sendable {
        public var username = ""
        public var password = ""
        public var passwordFile = ""
    }

    /// `authorization`: a type ("Bearer" unless said) and its credentials, inline or in a file.
    public struct Authorization: Hashable, Sendable {
        public var type = "Bearer"
        public var credentials = ""
        public var credentialsFile = ""
    }

    /// `oauth2`: the client-credentials grant (RFC 6749, 4.4).
    public struct OAuth2: Hashable, Sendable {
        public var clientID = ""
        public var clientSecret = ""
        public var clientSecretFile = ""
        public var scopes: [String] = []
        public var tokenURL = ""
        public var endpointParams: [HeaderField] = []
        public var proxyURL = ""
        /// proxy_url as read at load; nil without one.
        public var proxy: ProxyURL?
        public var tls = TLSSettings()
    }

    public var basicAuth: BasicAuth?
    /// bearer_token and bearer_token_file end here too, as common's Validate puts them.
    public var authorization: Authorization?
    public var oauth2: OAuth2?
    public var proxyURL = ""
    /// proxy_url as read at load, so that no probe reads it again; nil without one.
    public var proxy: ProxyURL?
    public var tls = TLSSettings()
    public var followRedirects = true
    public var enableHTTP2 = true
    /// bearer_token and bearer_token_file as read; `validate` moves them into `authorization`.
    var bearerToken = ""
    var bearerTokenFile = ""

    public init() {}

    /// The client's keys among the http prober's, in the debug output's order.
    static var keys: [ProberKey<Self>] {
        [
            ProberKey(
                "proxy_url",
                read: { settings, node, key, _ throws(ConfigurationError) in (settings.proxyURL, settings.proxy) = try proxy(node, key) },
                shown: { DebugValue.text($0.proxyURL) }),
            .flag("follow_redirects", \.followRedirects, always: true), .flag("enable_http2", \.enableHTTP2, always: true),
            ProberKey(
                "basic_auth",
                read: { settings, node, key, reader throws(ConfigurationError) in
                    settings.basicAuth = try basicAuth(node, at: key, reader)
                },
                shown: { $0.basicAuth.map(\.shown) }),
            ProberKey(
                "authorization",
                read: { settings, node, key, reader throws(ConfigurationError) in
                    settings.authorization = try authorization(node, at: key, reader)
                },
                shown: { $0.authorization.map(\.shown) }),
            ProberKey(
                "oauth2",
                read: { settings, node, key, reader throws(ConfigurationError) in settings.oauth2 = try oauth2(node, at: key, reader) },
                shown: { $0.oauth2.map(\.shown) }),
            .text("bearer_token", \.bearerToken), .text("bearer_token_file", \.bearerTokenFile), .tlsConfig(\.tls),
        ]
    }

    private static func basicAuth(_ node: Node, at path: String, _ reader: ConfigurationReader) throws(ConfigurationError) -> BasicAuth {
        var auth = BasicAuth()
        try reader.fields(node, at: path) { key, value throws(ConfigurationError) in
            switch key {
            case "username": auth.username = try value.text("\(path).\(key)")
            case "password": auth.password = try value.text("\(path).\(key)")
            case "password_file": auth.passwordFile = try value.text("\(path).\(key)")
            default: return false
            }
            return true
        }
        return auth
    }

    private static func authorization(_ node: Node, at path: String, _ reader: ConfigurationReader)
        throws(ConfigurationError) -> Authorization
    {
        var auth = Authorization()
        try reader.fields(node, at: path) { key, value throws(ConfigurationError) in
            switch key {
            case "type": auth.type = try value.text("\(path).\(key)").trimmingASCIISpaces
            case "credentials": auth.credentials = try value.text("\(path).\(key)")
            case "credentials_file": auth.credentialsFile = try value.text("\(path).\(key)")
            default: return false
            }
            return true
        }
        if auth.type.isEmpty { auth.type = "Bearer" }
        return auth
    }

    private static func oauth2(_ node: Node, at path: String, _ reader: ConfigurationReader) throws(ConfigurationError) -> OAuth2 {
        var oauth = OAuth2()
        try reader.fields(node, at: path) { key, value throws(ConfigurationError) in
            let name = "\(path).\(key)"
            switch key {
            case "client_id": oauth.clientID = try value.text(name)
            case "client_secret": oauth.clientSecret = try value.text(name)
            case "client_secret_file": oauth.clientSecretFile = try value.text(name)
            case "scopes": oauth.scopes = try value.texts(name)
            case "token_url": oauth.tokenURL = try url(value, name)
            case "endpoint_params": oauth.endpointParams = try value.pairs(name)
            case "proxy_url": (oauth.proxyURL, oauth.proxy) = try proxy(value, name)
            case "tls_config": oauth.tls = try TLSSettings.parse(value, at: name, reader)
            default: return false
            }
            return true
        }
        return oauth
    }

    /// common's URL type: Go's url.Parse, which takes almost anything; reach asks for a scheme
    /// and a host, what a proxy or token URL needs to be used at all.
    private static func url(_ node: Node, _ key: String) throws(ConfigurationError) -> String {
        let text = try node.text(key)
        let isURL = text.firstRange(ofText: "://") != nil && !text.hasSuffix("://") && !text.contains(where: \.isWhitespace)
        guard text.isEmpty || isURL else {
            throw ConfigurationError(node.mark?.line, "\(key): '\(text)' is not a URL (http://host:port)")
        }
        return text
    }

    /// A proxy_url: a URL in a scheme reach-exporter speaks to a proxy in, with a host.
    private static func proxy(_ node: Node, _ key: String) throws(ConfigurationError) -> (String, ProxyURL?) {
        let text = try url(node, key)
        do {
            return (text, text.isEmpty ? nil : try ProxyURL.parse(text))
        } catch {
            throw ConfigurationError(node.mark?.line, "\(key): '\(text)': \(error.description)")
        }
    }

    /// common's HTTPClientConfig.Validate: at most one way to authenticate, each whole.
    mutating func validate(line: Int?) throws(ConfigurationError) {
        let bearer = (token: bearerToken, file: bearerTokenFile)
        (bearerToken, bearerTokenFile) = ("", "")
        func refuse(_ message: String) -> ConfigurationError { ConfigurationError(line, message) }
        if !bearer.token.isEmpty && !bearer.file.isEmpty {
            throw refuse("at most one of bearer_token & bearer_token_file must be configured")
        }
        let bearing = !bearer.token.isEmpty || !bearer.file.isEmpty
        if (basicAuth != nil || oauth2 != nil) && bearing {
            throw refuse("at most one of basic_auth, oauth2, bearer_token & bearer_token_file must be configured")
        }
        if let basicAuth, !basicAuth.password.isEmpty && !basicAuth.passwordFile.isEmpty {
            throw refuse("at most one of basic_auth password & password_file must be configured")
        }
        if let authorization {
            if bearing { throw refuse("authorization is not compatible with bearer_token & bearer_token_file") }
            if !authorization.credentials.isEmpty && !authorization.credentialsFile.isEmpty {
                throw refuse("at most one of authorization credentials & credentials_file must be configured")
            }
            if authorization.type.lowercased() == "basic" {
                throw refuse(#"authorization type cannot be set to "basic", use "basic_auth" instead"#)
            }
            if basicAuth != nil || oauth2 != nil { throw refuse("at most one of basic_auth, oauth2 & authorization must be configured") }
        } else if bearing {
            authorization = Authorization(type: "Bearer", credentials: bearer.token, credentialsFile: bearer.file)
        }
        guard let oauth2 else { return }
        if basicAuth != nil { throw refuse("at most one of basic_auth, oauth2 & authorization must be configured") }
        if oauth2.clientID.isEmpty { throw refuse("oauth2 client_id must be configured") }
        if oauth2.clientSecret.isEmpty && oauth2.clientSecretFile.isEmpty {
            throw refuse("either oauth2 client_secret or client_secret_file must be configured")
        }
        if oauth2.tokenURL.isEmpty { throw refuse("oauth2 token_url must be configured") }
        if !oauth2.clientSecret.isEmpty && !oauth2.clientSecretFile.isEmpty {
            throw refuse("at most one of oauth2 client_secret & client_secret_file must be configured")
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (Go's strings.TrimSpace, for ASCII).
    var trimmingASCIISpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

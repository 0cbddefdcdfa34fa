/// The credentials blocks as the debug output and `/config` print them: prometheus/common's
/// `config/http_config.go` marshals a Secret as `<secret>` (and leaves an empty one out), so a
/// page or a log shows that a password is set, never the password.
extension HTTPClientSettings {
    static let secret = "<secret>"

    /// A nested block's fields, eight spaces in (under a key the prober's block prints four
    /// spaces in), the empty ones left out.
    static func nested(_ fields: [(String, String?)]) -> String {
        fields.compactMap { name, value in value.map { "\n        \(name): \($0)" } }.joined()
    }

    static func secret(_ value: String) -> String? { value.isEmpty ? nil : secret }
}

extension HTTPClientSettings.BasicAuth {
    var shown: String {
        HTTPClientSettings.nested([
            ("username", DebugValue.text(username)), ("password", HTTPClientSettings.secret(password)),
            ("password_file", DebugValue.text(passwordFile)),
        ])
    }
}

extension HTTPClientSettings.Authorization {
    var shown: String {
        HTTPClientSettings.nested([
            ("type", DebugValue.text(type)), ("credentials", HTTPClientSettings.secret(credentials)),
            ("credentials_file", DebugValue.text(credentialsFile)),
        ])
    }
}

extension HTTPClientSettings.OAuth2 {
    var shown: String {
        HTTPClientSettings.nested([
            ("client_id", DebugValue.text(clientID)), ("client_secret", HTTPClientSettings.secret(clientSecret)),
            ("client_secret_file", DebugValue.text(clientSecretFile)), ("scopes", DebugValue.list(scopes)),
            ("token_url", DebugValue.text(tokenURL)), ("proxy_url", DebugValue.text(proxyURL)),
        ])
    }
}

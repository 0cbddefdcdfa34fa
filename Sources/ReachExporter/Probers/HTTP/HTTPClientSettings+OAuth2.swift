import ReachCore

/// The client-credentials grant of common's OAuth2 (`config/http_config.go`, RFC 6749, 4.4):
/// a token asked of `token_url` before each probe and sent as a bearer token.
extension HTTPClientSettings.OAuth2 {
    /// The token request's form (application/x-www-form-urlencoded, RFC 6749, 4.4.2), as
    /// golang.org/x/oauth2's clientcredentials writes it: the grant, the scopes joined by
    /// spaces, the endpoint's parameters.
    var form: String {
        var pairs = [("grant_type", "client_credentials")]
        if !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        pairs += endpointParams.map { ($0.name, $0.value) }
        return pairs.map { URLQuery.escaped($0) + "=" + URLQuery.escaped($1) }.joined(separator: "&")
    }

    /// The access_token of a token response (RFC 6749, 5.1: a JSON object): a plain string
    /// value, as the tokens of RFC 6750's b64token syntax are; nil if there is none.
    static func accessToken(in body: [UInt8]) -> String? {
        let text = String(decoding: body, as: UTF8.self)
        guard let key = text.firstRange(ofText: "\"access_token\"") else { return nil }
        var rest = text[key.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard rest.first == ":" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard rest.first == "\"", let end = rest.dropFirst().firstIndex(of: "\"") else { return nil }
        let token = rest[rest.index(after: rest.startIndex)..<end]
        guard !token.isEmpty, !token.contains("\\") else { return nil }
        return String(token)
    }
}

import ReachCore
import ReachSystem

/// A `proxy_url` (the http prober's, or oauth2's for its token request), in the schemes Go's
/// http.Transport dials a proxy by (net/http transport.go, connectMethod): `http://` and
/// `https://` (RFC 9110's CONNECT, or the absolute-form for a plain request; over TLS to the
/// proxy for https), `socks5://` (RFC 1928). User information is the proxy's credentials:
/// Basic for an HTTP proxy (Proxy-Authorization, RFC 9110, 11.7.2), RFC 1929's username and
/// password for SOCKS5.
public struct ProxyURL: Hashable, Sendable {
    public enum Scheme: String, Hashable, Sendable {
        case http, https, socks5

        /// Go's default ports for a proxy URL without one (net/http transport.go, portMap).
        var defaultPort: UInt16 {
            switch self {
            case .http: 80
            case .https: 443
            case .socks5: 1080
            }
        }
    }

    public var scheme: Scheme
    public var host: String
    public var port: UInt16
    /// The user information, percent-decoded: nil without one.
    public var username: String?
    public var password = ""

    /// `scheme://[user[:password]@]host[:port][/]`; what Go's proxy dialler would refuse, or
    /// reach cannot speak, is refused here with why.
    public static func parse(_ text: String) throws(ProbeTarget.ParseError) -> ProxyURL {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else {
            throw ProbeTarget.ParseError(description: "'\(text)' has no scheme")
        }
        let schemeText = text[..<colon].lowercased()
        guard let scheme = Scheme(rawValue: schemeText) else {
            throw ProbeTarget.ParseError(description: "\(schemeText):// proxies are not supported (http, https and socks5 are)")
        }
        var authority = text[text.index(colon, offsetBy: 3)...]
        if let end = authority.firstIndex(of: "/") {
            guard authority[end...].allSatisfy({ $0 == "/" }) else {
                throw ProbeTarget.ParseError(description: "'\(text)': a proxy URL has no path")
            }
            authority = authority[..<end]
        }
        var proxy = ProxyURL(scheme: scheme, host: "", port: scheme.defaultPort)
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            let colon = user.firstIndex(of: ":") ?? user.endIndex
            guard let name = percentDecoded(user[..<colon]),
                let password = colon == user.endIndex ? "" : percentDecoded(user[user.index(after: colon)...])
            else { throw ProbeTarget.ParseError(description: "'\(text)': bad percent-encoding in the user information") }
            (proxy.username, proxy.password) = (name, password)
            authority = authority[authority.index(after: at)...]
        }
        let target = try ProbeTarget.parse("http://" + authority, for: .http)
        proxy.host = target.host
        // A port is given when a ':' follows the host (after the ']' of an IPv6 literal).
        if let port = target.port, authority.split(separator: "]", omittingEmptySubsequences: false).last?.contains(":") == true {
            proxy.port = port
        }
        return proxy
    }

    /// RFC 3986, 2.1: `%XX` to its byte; nil when a `%` is not followed by two hex digits or
    /// the bytes are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        while index < text.utf8.endIndex {
            let byte = text.utf8[index]
            index = text.utf8.index(after: index)
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            let digits = text.utf8[index...].prefix(2)
            guard digits.count == 2, let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
            index = text.utf8.index(index, offsetBy: 2)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

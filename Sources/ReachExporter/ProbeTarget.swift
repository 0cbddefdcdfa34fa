import ReachCore
import ReachSystem

/// What a module probes, read from `target=` as blackbox_exporter reads it: a host for
/// icmp and route, `host:port` for tcp and dns (`[2001:db8::1]:80` for an IPv6 literal; dns's
/// port is 53 unless given), a URL for
/// http (`http://` is assumed when no scheme is given: `prober/http.go`), `host:port` for
/// grpc, an `http://` or `https://` before it allowed (`prober/grpc.go`).
public struct ProbeTarget: Hashable, Sendable {
    /// A host name or an address literal, without brackets.
    public var host: String
    public var port: UInt16?
    /// For http: the request target, from the first '/' on ("/" when the URL has none).
    public var path: String?
    /// For http: an https:// URL (TLS, port 443 unless given).
    public var secure = false

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public static func parse(_ text: String, for prober: ExporterModule.Prober) throws(ParseError) -> ProbeTarget {
        guard !text.isEmpty else { throw ParseError(description: "Target parameter is missing") }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw ParseError(description: "target has spaces, control characters or non-ASCII bytes")
        }
        switch prober {
        case .icmp, .route, .trace: return ProbeTarget(host: try host(unbracketed(text)))
        case .dns: return try dns(text)
        case .tcp: return try tcp(text)
        case .grpc: return try grpc(text)
        case .http: return try http(text)
        }
    }

    /// blackbox_exporter's dns prober: host:port, else the whole target is the host (its
    /// net.SplitHostPort failing, as for a bare IPv6 literal) and the port the prober's
    /// default: 53, or 853 with dns_over_tls.
    private static func dns(_ text: String) throws(ParseError) -> ProbeTarget {
        if (try? IPAddress.parse(unbracketed(text))) != nil, !text.hasPrefix("[") || text.hasSuffix("]") {
            return ProbeTarget(host: unbracketed(text))
        }
        let (host, port) = try hostAndPort(text)
        return ProbeTarget(host: host, port: port)
    }

    /// host:port, the port required.
    private static func tcp(_ text: String) throws(ParseError) -> ProbeTarget {
        let (host, port) = try hostAndPort(text)
        guard let port else { throw ParseError(description: "tcp target '\(text)' needs a port: host:port") }
        return ProbeTarget(host: host, port: port)
    }

    /// A URL, `http://` assumed when no scheme is given: its authority, then the request
    /// target from the first '/' on, without the fragment.
    private static func http(_ text: String) throws(ParseError) -> ProbeTarget {
        var rest = Substring(text)
        var secure = false
        // A scheme is letters, digits, "+", "-" and "." before "://" (RFC 3986, 3.1).
        if let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://"),
           text[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        {
            let scheme = text[..<colon].lowercased()
            guard scheme == "http" || scheme == "https" else {
                throw ParseError(description: "\(scheme):// targets are not supported (http and https only)")
            }
            secure = scheme == "https"
            rest = text[text.index(colon, offsetBy: 3)...]
        }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var path = String(rest[authorityEnd...])
        if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        let authority = String(rest[..<authorityEnd])
        guard !authority.contains("@") else { throw ParseError(description: "user information in a URL is not supported") }
        let (host, port) = try hostAndPort(authority)
        return ProbeTarget(host: host, port: port ?? (secure ? 443 : 80), path: path, secure: secure)
    }

    /// blackbox_exporter's grpc target (`prober/grpc.go`): host:port, with `http://` or
    /// `https://` before it or not; port 80 when none is given.
    private static func grpc(_ text: String) throws(ParseError) -> ProbeTarget {
        var authority = Substring(text)
        for scheme in ["http://", "https://"] where authority.hasPrefix(scheme) { authority = authority.dropFirst(scheme.count) }
        authority = authority.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { throw ParseError(description: "user information in a URL is not supported") }
        let (host, port) = try hostAndPort(String(authority))
        return ProbeTarget(host: host, port: port ?? 80)
    }

    private static func unbracketed(_ text: String) -> String {
        text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
    }

    private static func host(_ text: String) throws(ParseError) -> String {
        if (try? IPAddress.parse(text)) != nil { return text }
        guard (try? HostName.validate(text)) != nil else {
            throw ParseError(description: "'\(text)' is neither a host name nor an address")
        }
        return text
    }

    private static func hostAndPort(_ text: String) throws(ParseError) -> (String, UInt16?) {
        var hostText = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw ParseError(description: "'\(text)': no ']' after an IPv6 literal") }
            hostText = String(text[text.index(after: text.startIndex)..<close])
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ParseError(description: "'\(text)': expected ':port' after ']'") }
                portText = after.dropFirst()
            }
            guard (try? IPAddress.parse(hostText)) != nil else { throw ParseError(description: "'\(hostText)' is not an IPv6 address") }
        } else if let colon = text.lastIndex(of: ":") {
            guard text.firstIndex(of: ":") == colon else {
                throw ParseError(description: "'\(text)': write an IPv6 literal in brackets, [2001:db8::1]:80")
            }
            hostText = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        var port: UInt16?
        if let portText {
            guard let number = UInt16(portText), number > 0, portText.allSatisfy(\.isASCII) else {
                throw ParseError(description: "'\(portText)' is not a port")
            }
            port = number
        }
        return (try host(hostText), port)
    }
}

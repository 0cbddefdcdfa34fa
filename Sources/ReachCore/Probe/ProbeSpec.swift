/// What one `--probe` names: `icmp:HOST` (IPv6 bare or bracketed), `tcp:HOST:PORT` (IPv6 as `tcp:[2001:db8::1]:443`)
/// or `http://HOST[:PORT]/PATH`. Nothing is ever probed that the user did not name.
public enum ProbeSpec: Hashable, Sendable, CustomStringConvertible {
    case icmp(host: String)
    case tcp(host: String, port: UInt16)
    case http(host: String, port: UInt16, path: String)

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case unknownForm(String)
        case missingHost(String)
        case missingPort(String)
        case badPort(String)
        case httpsRefused(String)
        case badHost(String)

        public var description: String { message { $0 } }

        /// The message with the spec shown by `quote`: the command line escapes and cuts a
        /// long or odd spec there, so the reason after it is never cut off.
        public func message(quoting quote: (String) -> String) -> String {
            switch self {
            case .unknownForm(let text): "probe '\(quote(text))' is not icmp:HOST, tcp:HOST:PORT or http://HOST[:PORT]/PATH"
            case .missingHost(let text): "probe '\(quote(text))' names no host"
            case .missingPort(let text): "probe '\(quote(text))' names no port (tcp:HOST:PORT)"
            case .badPort(let text): "probe '\(quote(text))' has a port that is not 1-65535"
            case .httpsRefused(let text): "probe '\(quote(text))': https cannot see a captive portal; use http://"
            case .badHost(let text): "probe '\(quote(text))' has an invalid host"
            }
        }
    }

    public static func parse(_ text: String) throws(ParseError) -> ProbeSpec {
        if text.hasPrefix("icmp:") {
            let rest = text.dropFirst("icmp:".count)
            // An IPv6 literal with or without brackets, as tcp: and http:// write it; no port.
            guard rest.hasPrefix("[") else {
                try checkHost(String(rest), in: text)
                return .icmp(host: String(rest))
            }
            let (host, port) = try splitHostPort(rest, in: text)
            guard port == nil else { throw .badHost(text) }
            return .icmp(host: host)
        }
        if text.hasPrefix("tcp:") {
            let (host, port) = try splitHostPort(Substring(text.dropFirst("tcp:".count)), in: text)
            guard let port else { throw .missingPort(text) }
            return .tcp(host: host, port: port)
        }
        if text.lowercased().hasPrefix("https://") { throw .httpsRefused(text) }
        if text.lowercased().hasPrefix("http://") {
            // Split by Unicode scalars, not Characters: a scalar such as U+0602 joins the "/"
            // after it into one Character, which moved the end of the host.
            let rest = text.unicodeScalars.dropFirst("http://".count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            var path = String(String.UnicodeScalarView(rest.dropFirst(authority.count).prefix { $0 != "#" }))
            if path.isEmpty { path = "/" } else if path.hasPrefix("?") { path = "/" + path }
            let (host, port) = try splitHostPort(Substring(authority), in: text)
            guard path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f }) else { throw .unknownForm(text) }
            return .http(host: host, port: port ?? 80, path: path)
        }
        throw .unknownForm(text)
    }

    /// "HOST:PORT", "[V6]:PORT", or a bare host (port nil). By Unicode scalars, as above.
    private static func splitHostPort(_ text: Substring, in original: String) throws(ParseError) -> (String, UInt16?) {
        let scalars = text.unicodeScalars
        var host: Substring.UnicodeScalarView
        var portText: Substring.UnicodeScalarView?
        if scalars.first == "[" {
            guard let close = scalars.firstIndex(of: "]") else { throw .badHost(original) }
            host = scalars[scalars.index(after: scalars.startIndex)..<close]
            // Brackets are for IPv6 literals only: "[db.test]" would print back without them.
            guard host.contains(":") else { throw .badHost(original) }
            let after = scalars[scalars.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw .badHost(original) }
                portText = after.dropFirst()
            }
        } else if let colon = scalars.lastIndex(of: ":") {
            host = scalars[..<colon]
            portText = scalars[scalars.index(after: colon)...]
            if host.contains(":") { throw .badHost(original) } // an IPv6 literal needs brackets
        } else {
            host = scalars
        }
        let hostText = String(String.UnicodeScalarView(host))
        try checkHost(hostText, in: original)
        guard let portText else { return (hostText, nil) }
        guard !portText.isEmpty else { throw .missingPort(original) }
        guard portText.allSatisfy({ ("0"..."9").contains($0) }), let port = UInt16(String(String.UnicodeScalarView(portText))),
            port > 0
        else {
            throw .badPort(original)
        }
        return (hostText, port)
    }

    private static func checkHost(_ host: String, in original: String) throws(ParseError) {
        guard !host.isEmpty else { throw .missingHost(original) }
        // A bracket left in a host ("[[::1]", "icmp:[[::1]") is no name and no literal.
        guard !host.contains(where: { $0 == "[" || $0 == "]" }) else { throw .badHost(original) }
        do { try HostName.validate(host) } catch { throw .badHost(original) }
    }

    public var host: String {
        switch self {
        case .icmp(let host), .tcp(let host, _), .http(let host, _, _): host
        }
    }

    public var kind: String {
        switch self {
        case .icmp: "icmp"
        case .tcp: "tcp"
        case .http: "http"
        }
    }

    /// The probe as the user would write it.
    public var description: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        switch self {
        case .icmp(let host): return "icmp:\(host)"
        case .tcp(_, let port): return "tcp:\(bracketed):\(port)"
        case .http(_, let port, let path): return "http://\(bracketed)\(port == 80 ? "" : ":\(port)")\(path)"
        }
    }
}

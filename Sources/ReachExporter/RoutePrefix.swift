import ReachCommandLine
import ReachCore
import ReachSystem

/// blackbox_exporter 0.23's `--web.external-url` and `--web.route-prefix` (its main.go):
/// every endpoint served under the prefix (the external URL's path unless given), and,
/// with a prefix, `/` redirected to the external URL and anything else outside it 404.
public struct RoutePrefix: Sendable, Equatable {
    /// "/", or "/path/" (blackbox's trailing slash, so that relative links stay inside).
    public var prefix = "/"
    /// The external URL, its path without a trailing "/" (main.go's computeExternalURL).
    public var externalURL = ""

    public init() {}

    /// From the flags; without `--web.external-url`, http://HOSTNAME:PORT/ of the first
    /// listening address, as blackbox_exporter infers it.
    public init(externalURL given: String?, routePrefix: String?, port: UInt16, hostname: () -> String) throws(UsageError) {
        let given = given.flatMap { $0.isEmpty ? nil : $0 }
        let routePrefix = routePrefix.flatMap { $0.isEmpty ? nil : $0 }
        // Neither: everything at "/", and the inferred URL is not needed.
        guard given != nil || routePrefix != nil else { return }
        let text = given ?? "http://\(hostname()):\(port)/"
        if text.hasPrefix("\"") || text.hasPrefix("'") || text.hasSuffix("\"") || text.hasSuffix("'") {
            throw UsageError("\(ExporterOptions.externalURLOption.spelled): URL must not begin or end with quotes")
        }
        // url.Parse's parts: scheme://authority, the path, then ?query#fragment.
        var rest = Substring(text)
        var head = ""
        if let scheme = text.firstRange(ofText: "://") {
            let authorityEnd = text[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
            head = String(text[..<authorityEnd])
            rest = text[authorityEnd...]
        }
        let pathEnd = rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex
        var path = String(rest[..<pathEnd])
        while path.hasSuffix("/") { path.removeLast() }
        if !path.isEmpty, !path.hasPrefix("/") { path = "/" + path }
        externalURL = head + path + rest[pathEnd...]
        let trimmed = (routePrefix ?? path).split(separator: "/", omittingEmptySubsequences: false)
        let inner = trimmed.drop { $0.isEmpty }.reversed().drop { $0.isEmpty }.reversed().joined(separator: "/")
        prefix = inner.isEmpty ? "/" : "/\(inner)/"
    }

    /// The kernel's host name (uname(2)'s nodename), as Go's os.Hostname reads it on Linux.
    public static func hostname() -> String {
        guard case .success(let bytes) = FileContents.read("/proc/sys/kernel/hostname", limit: 256) else { return "localhost" }
        let name = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        return name.isEmpty ? "localhost" : name
    }

    public enum Resolution: Equatable, Sendable {
        /// The request target as the routes inside the prefix see it.
        case route(String)
        case redirect(status: Int, location: String)
        /// Go's http.NotFound.
        case notFound
    }

    public func resolve(_ uri: String) -> Resolution {
        guard prefix != "/" else { return .route(uri) }
        let mark = uri.firstIndex(of: "?") ?? uri.endIndex
        let path = uri[..<mark]
        if path == "/" { return .redirect(status: 302, location: externalURL) }
        if path.hasPrefix(prefix) { return .route("/" + path.dropFirst(prefix.count) + uri[mark...]) }
        // Go's ServeMux sends a subtree's name without its slash to the subtree.
        if path + "/" == prefix { return .redirect(status: 301, location: prefix + uri[mark...]) }
        return .notFound
    }
}

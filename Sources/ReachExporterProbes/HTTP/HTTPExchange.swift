import ReachCore
import ReachSystem

/// One request of the exporter's http prober on a connection of its own: the connect
/// (ReachCore's `TCPProbe`, the one `reach` runs), for https the TLS handshake over it,
/// then ReachCore's `HTTPProbe` exchange through the plain or the TLS stream, or HTTP/2
/// (`HTTP2Exchange`) when the handshake's ALPN chose it. Each phase is timed into `phases`
/// as blackbox_exporter's http prober times it (`prober/http.go`).
public enum HTTPExchange {
    public enum Outcome: Equatable {
        case http(HTTPProbe.Outcome)
        case tlsFailed(TLSStream.Failure)
        /// The proxy did not open the tunnel: its status line, or why none came.
        case proxyFailed(String)
    }

    /// A proxy (proxy_url): how it is spoken to, where it listens, and the host and port it
    /// is asked to reach (an address, or the target's name when the proxy resolves it).
    public struct Proxy: Sendable {
        public enum Kind: Sendable {
            /// http://: CONNECT for TLS, else the absolute-form (RFC 9112, 3.2.2).
            case http
            /// https://: the same inside TLS to the proxy, checked as `settings` say against
            /// `name` (Go's transport checks the proxy with the module's tls_config).
            case https(TLSSettings, name: String)
            /// socks5://: RFC 1928's CONNECT, then the request as if direct.
            case socks5
        }

        public var kind: Kind
        public var address: IPAddress
        public var port: UInt16
        public var host: String
        public var targetPort: UInt16
        /// The proxy URL's user information: Basic Proxy-Authorization for an HTTP proxy
        /// (RFC 9110, 11.7.2), RFC 1929's username and password for SOCKS5.
        public var username: String?
        public var password: String

        public init(
            _ kind: Kind, address: IPAddress, port: UInt16, host: String, targetPort: UInt16, username: String? = nil, password: String = ""
        ) {
            (self.kind, self.address, self.port, self.host, self.targetPort) = (kind, address, port, host, targetPort)
            (self.username, self.password) = (username, password)
        }

        /// CONNECT's authority, and the absolute-form's.
        var authority: String { (host.contains(":") ? "[\(host)]" : host) + ":\(targetPort)" }

        /// The fields an HTTP proxy is sent besides the request's own.
        var fields: [(name: String, value: String)] {
            guard let username else { return [] }
            return [("Proxy-Authorization", "Basic " + Base64.encoded(Array("\(username):\(password)".utf8)))]
        }

        var speaksHTTP: Bool {
            if case .socks5 = kind { return false }
            return true
        }
    }

    /// What is asked, written as HTTP/1.1 or as HTTP/2's frames.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// In order; Host among them (HTTP/2's :authority).
        public var fields: [(name: String, value: String)]
        public var body: [UInt8]

        public init(method: String, path: String, fields: [(name: String, value: String)], body: [UInt8]) {
            (self.method, self.path, self.fields, self.body) = (method, path, fields, body)
        }

        /// RFC 9112's request line, the fields, and the body.
        public var http1: [UInt8] {
            Array("\(method) \(path) HTTP/1.1\r\n\(fields.map { "\($0.name): \($0.value)\r\n" }.joined())\r\n".utf8) + body
        }
    }

    /// `tls` nil: plain HTTP. The TLS peer is returned beside the outcome once the
    /// handshake succeeded (for a plain request through an https:// proxy, the proxy's).
    /// The connection is made from `source`'s address and link.
    public static func run(
        _ request: Request, to address: IPAddress, port: UInt16, host: String, tls: TLSSettings?, via proxy: Proxy? = nil,
        from source: SocketBinding = .unbound, deadline: MonotonicInstant, phases: inout HTTPProbe.Phases
    ) throws -> (outcome: Outcome, peer: TLSStream.Peer?) {
        let probe = HTTPProbe(userAgent: "")
        let connection: TCPConnection
        let dialled = (address: proxy?.address ?? address, port: proxy?.port ?? port)
        switch try probe.connect(dialled.address, port: dialled.port, from: source, deadline: deadline, phases: &phases) {
        case .success(let open): connection = open
        case .failure(let why): return (.http(.notConnected(why)), nil)
        }
        var hop: any ByteStream = connection
        // Through an https:// proxy, a plain request's TLS is the proxy's, as Go's response
        // carries it (net/http transport.go: the connection's tlsState).
        var proxyPeer: TLSStream.Peer?
        if let proxy {
            switch try open(proxy, over: connection, deadline: deadline, phases: &phases) {
            case .success(let stream):
                hop = stream
                proxyPeer = (stream as? TLSStream)?.peer
            case .failure(let refusal): return (.proxyFailed(refusal.reason), nil)
            }
        }
        guard let tls else {
            var request = request
            if let proxy, proxy.speaksHTTP {
                // Go writes the absolute-form with the request's Host (net/http request.go,
                // write), so the proxy is given the name, and resolves it, as it is for blackbox.
                let host = request.fields.first { $0.name.lowercased() == "host" }?.value ?? proxy.authority
                request.path = "http://\(host)\(request.path)"
                request.fields += proxy.fields
            }
            return (.http(try probe.exchange(request.http1, over: hop, deadline: deadline, phases: &phases)), proxyPeer)
        }
        if let proxy, proxy.speaksHTTP, let refusal = try tunnel(to: proxy, over: hop, deadline: deadline) {
            return (.proxyFailed(refusal), nil)
        }
        let tlsStart = MonotonicInstant.now()
        let secured = try TLSStream.handshake(over: hop, address: address, port: port, host: host, settings: tls, deadline: deadline)
        phases.tls += MonotonicInstant.now() - tlsStart
        switch secured {
        case .failure(let why): return (.tlsFailed(why), nil)
        case .success(let stream) where stream.applicationProtocol == "h2":
            return (.http(try HTTP2Exchange.run(request, over: stream, deadline: deadline, phases: &phases)), stream.peer)
        case .success(let stream):
            return (.http(try probe.exchange(request.http1, over: stream, deadline: deadline, phases: &phases)), stream.peer)
        }
    }

    struct ProxyRefusal: Error {
        var reason: String
    }

    /// What is spoken to the proxy before the request: TLS to an https:// one, RFC 1928's
    /// handshake with a SOCKS5 one; the stream the request then goes over.
    private static func open(
        _ proxy: Proxy, over connection: TCPConnection, deadline: MonotonicInstant, phases: inout HTTPProbe.Phases
    ) throws -> Result<any ByteStream, ProxyRefusal> {
        switch proxy.kind {
        case .http: return .success(connection)
        case .socks5:
            let refusal = try SOCKS5Handshake.connect(
                to: proxy.host, port: proxy.targetPort, username: proxy.username, password: proxy.password, over: connection,
                deadline: deadline)
            return refusal.map { .failure(ProxyRefusal(reason: $0)) } ?? .success(connection)
        case .https(let settings, let name):
            let tlsStart = MonotonicInstant.now()
            let secured = try TLSStream.handshake(
                over: connection, address: proxy.address, port: proxy.port, host: name, settings: settings, deadline: deadline)
            phases.tls += MonotonicInstant.now() - tlsStart
            switch secured {
            case .success(let stream): return .success(stream)
            case .failure(let why): return .failure(ProxyRefusal(reason: "TLS with the proxy: \(why.detail)"))
            }
        }
    }

    /// RFC 9110, 9.3.6: CONNECT `authority`, and the proxy's answer read to its blank line;
    /// nil when a 2xx opened the tunnel, else why not.
    static func tunnel(to proxy: Proxy, over connection: any ByteStream, deadline: MonotonicInstant) throws -> String? {
        let fields = [("Host", proxy.authority)] + proxy.fields
        let ask = "CONNECT \(proxy.authority) HTTP/1.1\r\n\(fields.map { "\($0.0): \($0.1)\r\n" }.joined())\r\n"
        guard try connection.sendAll(Array(ask.utf8), deadline: deadline) else { return "timed out sending CONNECT" }
        var head: [UInt8] = []
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard head.count < HTTPResponse.headerLimit else {
                return "the proxy's answer to CONNECT is longer than \(HTTPResponse.headerLimit) bytes"
            }
            // A byte at a time: what follows the blank line is the server's, for TLS.
            switch try connection.receive(maximum: 1, deadline: deadline) {
            case .data(let bytes): head += bytes
            case .timedOut: return "timed out waiting for the proxy's answer to CONNECT"
            case .closed, .reset: return "the proxy closed the connection after CONNECT"
            }
        }
        let statusLine = String(decoding: head.prefix { $0 != 13 }, as: UTF8.self)
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, parts[1].hasPrefix("2") else {
            return "the proxy answered CONNECT with '\(statusLine)'"
        }
        return nil
    }
}

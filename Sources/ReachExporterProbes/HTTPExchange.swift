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

    /// An HTTP proxy (proxy_url): where it listens, and the host and port it is asked to
    /// reach, CONNECT's authority or the absolute-form's (an address, or the target's name
    /// when the proxy resolves it).
    public struct Proxy: Sendable {
        public var address: IPAddress
        public var port: UInt16
        public var authority: String

        public init(address: IPAddress, port: UInt16, authority: String) {
            (self.address, self.port, self.authority) = (address, port, authority)
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
    /// handshake succeeded.
    public static func run(
        _ request: Request, to address: IPAddress, port: UInt16, host: String, tls: TLSSettings?, via proxy: Proxy? = nil,
        deadline: MonotonicInstant, phases: inout HTTPProbe.Phases
    ) throws -> (outcome: Outcome, peer: TLSStream.Peer?) {
        let probe = HTTPProbe(userAgent: "")
        let connection: TCPConnection
        switch try probe.connect(proxy?.address ?? address, port: proxy?.port ?? port, deadline: deadline, phases: &phases) {
        case .success(let open): connection = open
        case .failure(let why): return (.http(.notConnected(why)), nil)
        }
        guard let tls else {
            // RFC 9112, 3.2.2: through a proxy, the absolute-form.
            var request = request
            if let proxy { request.path = "http://\(proxy.authority)\(request.path)" }
            return (.http(try probe.exchange(request.http1, over: connection, deadline: deadline, phases: &phases)), nil)
        }
        if let proxy, let refusal = try tunnel(to: proxy.authority, over: connection, deadline: deadline) {
            return (.proxyFailed(refusal), nil)
        }
        let tlsStart = MonotonicInstant.now()
        let secured = try TLSStream.handshake(over: connection, address: address, port: port, host: host, settings: tls, deadline: deadline)
        phases.tls += MonotonicInstant.now() - tlsStart
        switch secured {
        case .failure(let why): return (.tlsFailed(why), nil)
        case .success(let stream) where stream.applicationProtocol == "h2":
            return (.http(try HTTP2Exchange.run(request, over: stream, deadline: deadline, phases: &phases)), stream.peer)
        case .success(let stream):
            return (.http(try probe.exchange(request.http1, over: stream, deadline: deadline, phases: &phases)), stream.peer)
        }
    }

    /// RFC 9110, 9.3.6: CONNECT `authority`, and the proxy's answer read to its blank line;
    /// nil when a 2xx opened the tunnel, else why not.
    static func tunnel(to authority: String, over connection: TCPConnection, deadline: MonotonicInstant) throws -> String? {
        let ask = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n"
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

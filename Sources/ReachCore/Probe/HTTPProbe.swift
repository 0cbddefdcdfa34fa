import ReachSystem

/// What an HTTP exchange is read and written through: a TCP connection, or the exporter's
/// TLS session over one.
public protocol ByteStream: AnyObject {
    /// false: the deadline came before every byte was sent.
    func sendAll(_ bytes: [UInt8], deadline: MonotonicInstant) throws -> Bool
    func receive(maximum: Int, deadline: MonotonicInstant) throws -> TCPConnection.ReceiveOutcome
}

extension TCPConnection: ByteStream {}

/// One plain HTTP/1.1 GET on a connection of its own, read to a whole response within a
/// deadline: the one HTTP probe of `reach status --probe`, `reach watch --probe` and the
/// exporter's http module. What differs between them is a parameter (the User-Agent) or
/// what they do with the outcome: the command line classifies the response into a verdict
/// and a line, the exporter records the phases and follows redirects (`ExporterProber`).
public struct HTTPProbe: Sendable {
    public var userAgent: String

    public init(userAgent: String) {
        self.userAgent = userAgent
    }

    /// Where the time went, by blackbox_exporter's phases (`prober/http.go`): the connect;
    /// the TLS handshake (the exporter's https only); from the connection to the response's
    /// first byte; from there to its end. Added to, so that a probe that follows redirects
    /// sums them.
    public struct Phases: Equatable, Sendable {
        public var connect = TimeSpan.zero
        public var tls = TimeSpan.zero
        public var processing = TimeSpan.zero
        public var transfer = TimeSpan.zero
        public init() {}
    }

    public enum Outcome: Equatable {
        /// A whole response, and its HTTP version from the status line (1.0 or 1.1).
        case response(HTTPResponse, version: Double)
        case notConnected(TCPProbe.Failure)
        /// The connection ended before a whole response came: why, in one line.
        case noResponse(String)
        /// The deadline passed before a whole response came: where it stopped, in one line.
        case timedOut(String)
        /// Bytes came that are not an HTTP response: what is wrong with them.
        case malformed(String)
    }

    /// GET `path` from `host` (the Host header's name: a name or a literal) at `address`.
    public func get(
        _ address: IPAddress, host: String, port: UInt16, path: String, deadline: MonotonicInstant, phases: inout Phases
    ) throws -> Outcome {
        switch try connect(address, port: port, deadline: deadline, phases: &phases) {
        case .failure(let why): return .notConnected(why)
        case .success(let connection):
            let head = Array(request(host: host, port: port, path: path).utf8)
            return try exchange(head, over: connection, deadline: deadline, phases: &phases)
        }
    }

    /// The request's connection, its time added to the connect phase.
    public func connect(
        _ address: IPAddress, port: UInt16, from source: SocketBinding = .unbound, deadline: MonotonicInstant, phases: inout Phases
    ) throws -> Result<TCPConnection, TCPProbe.Failure> {
        let connectStart = MonotonicInstant.now()
        defer { phases.connect += MonotonicInstant.now() - connectStart }
        return try TCPProbe.connect(to: address, port: port, from: source, deadline: deadline)
    }

    /// Sends `request` whole over `stream` and reads the one response to it, timing the
    /// processing and transfer phases.
    public func exchange(_ request: [UInt8], over stream: some ByteStream, deadline: MonotonicInstant, phases: inout Phases) throws
        -> Outcome
    {
        let processingStart = MonotonicInstant.now()
        guard try stream.sendAll(request, deadline: deadline) else {
            return .timedOut("timed out sending the request")
        }
        return try read(stream, since: processingStart, deadline: deadline, phases: &phases)
    }

    /// The request's head (the body follows it): RFC 9112's request line, RFC 9110's Host
    /// (an IPv6 literal in brackets, the port unless it is the scheme's `defaultPort`), the
    /// fields given (a Host, Accept or User-Agent among them replaces ours), Content-Length
    /// for a body, and a close after the one answer.
    public func request(
        method: String = "GET", host: String, port: UInt16, defaultPort: UInt16 = 80, path: String,
        fields: [(name: String, value: String)] = [], body: [UInt8] = []
    ) -> String {
        let head = self.fields(method: method, host: host, port: port, defaultPort: defaultPort, fields: fields, body: body)
        return "\(method) \(path) HTTP/1.1\r\n" + head.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n"
    }

    /// The request's fields, in the order `request` writes them.
    public func fields(
        method: String = "GET", host: String, port: UInt16, defaultPort: UInt16 = 80, fields: [(name: String, value: String)] = [],
        body: [UInt8] = []
    ) -> [(name: String, value: String)] {
        let hostHeader = (host.contains(":") ? "[\(host)]" : host) + (port == defaultPort ? "" : ":\(port)")
        var head = [("Host", hostHeader), ("User-Agent", userAgent), ("Accept", "*/*")].filter { name, _ in
            !fields.contains { $0.name.lowercased() == name.lowercased() }
        }
        head += fields.filter { !["content-length", "connection"].contains($0.name.lowercased()) }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head.append(("Content-Length", "\(body.count)")) }
        head.append(("Connection", "close"))
        return head
    }

    private func read(
        _ connection: some ByteStream, since processingStart: MonotonicInstant, deadline: MonotonicInstant, phases: inout Phases
    ) throws -> Outcome {
        var received: [UInt8] = []
        var firstByte: MonotonicInstant?
        while true {
            let outcome = try connection.receive(maximum: 16 * 1024, deadline: deadline)
            switch outcome {
            case .data(let bytes):
                if firstByte == nil {
                    let now = MonotonicInstant.now()
                    firstByte = now
                    phases.processing += now - processingStart
                }
                received += bytes
            case .timedOut: return .timedOut(received.isEmpty ? "timed out waiting for a response" : "timed out reading the response")
            case .reset where received.isEmpty: return .noResponse("connection reset")
            case .closed, .reset: break
            }
            let closed = outcome == .closed || outcome == .reset
            switch HTTPResponse.parse(received, connectionClosed: closed) {
            case .incomplete:
                if closed { return .noResponse("connection closed inside the response") }
                // A server that never stops sending keeps the socket readable, so the receive
                // above never waits and never times out: the deadline is checked here too.
                if deadline.remaining(from: .now()) == .zero { return .timedOut("timed out reading the response") }
            case .malformed(let why):
                return received.isEmpty ? .noResponse("connection closed with no response") : .malformed(why)
            case .complete(let response):
                if let firstByte { phases.transfer += MonotonicInstant.now() - firstByte }
                return .response(response, version: received.starts(with: Array("HTTP/1.0".utf8)) ? 1.0 : 1.1)
            }
        }
    }
}

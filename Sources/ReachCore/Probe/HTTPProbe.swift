import ReachSystem

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
    /// from the connection to the response's first byte; from there to its end. Added to,
    /// so that a probe that follows redirects sums them.
    public struct Phases: Equatable, Sendable {
        public var connect = TimeSpan.zero
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
        let connectStart = MonotonicInstant.now()
        let connected = try TCPProbe.connect(to: address, port: port, deadline: deadline)
        phases.connect += MonotonicInstant.now() - connectStart
        let connection: TCPConnection
        switch connected {
        case .success(let open): connection = open
        case .failure(let why): return .notConnected(why)
        }
        let processingStart = MonotonicInstant.now()
        guard try connection.sendAll(Array(request(host: host, port: port, path: path).utf8), deadline: deadline) else {
            return .timedOut("timed out sending the request")
        }
        return try read(connection, since: processingStart, deadline: deadline, phases: &phases)
    }

    /// The request: RFC 9112's request line, RFC 9110's Host (an IPv6 literal in brackets,
    /// the port unless it is http's 80), and a close after the one answer.
    func request(host: String, port: UInt16, path: String) -> String {
        let hostHeader = (host.contains(":") ? "[\(host)]" : host) + (port == 80 ? "" : ":\(port)")
        return "GET \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: \(userAgent)\r\nAccept: */*\r\nConnection: close\r\n\r\n"
    }

    private func read(
        _ connection: TCPConnection, since processingStart: MonotonicInstant, deadline: MonotonicInstant, phases: inout Phases
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
            case .malformed(let why):
                return received.isEmpty ? .noResponse("connection closed with no response") : .malformed(why)
            case .complete(let response):
                if let firstByte { phases.transfer += MonotonicInstant.now() - firstByte }
                return .response(response, version: received.starts(with: Array("HTTP/1.0".utf8)) ? 1.0 : 1.1)
            }
        }
    }
}

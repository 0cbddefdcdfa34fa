import ReachCore
import ReachSystem

/// blackbox_exporter's tcp prober with `query_response` (`prober/tcp.go`, ProbeTCP): a
/// connection, over TLS from the start with `tls`, then each step in turn: read lines until
/// one matches `expect` (the whole step fails when the peer closes first), send `send` and a
/// newline, with `${1}` or `${name}` replaced by the matched line's groups (Go's
/// `regexp.Expand`), then with `startTLS` a TLS handshake over the same connection, the
/// lines after it read from TLS.
public struct TCPConversation: Sendable {
    public struct Step: Sendable, Hashable {
        public var expect: ExpectPattern?
        public var send: String
        public var startTLS: Bool

        public init(expect: ExpectPattern? = nil, send: String = "", startTLS: Bool = false) {
            self.expect = expect
            self.send = send
            self.startTLS = startTLS
        }
    }

    public var steps: [Step]
    /// TLS from the connection's start (`tls: true`).
    public var tls: Bool
    /// tls_config, for that handshake and each step's STARTTLS.
    public var tlsSettings: TLSSettings

    public init(steps: [Step], tls: Bool = false, tlsSettings: TLSSettings = TLSSettings()) {
        self.steps = steps
        self.tls = tls
        self.tlsSettings = tlsSettings
    }

    public enum Outcome: Equatable, Sendable {
        /// Connected, and every step done.
        case completed
        case notConnected(TCPProbe.Failure)
        /// The peer closed the connection before a line matched step `step`'s expect
        /// (blackbox_exporter's probe_failed_due_to_regex).
        case noMatch(step: Int)
        /// Step `step` could not read or send its line.
        case broken(step: Int, Breakage)
        /// The TLS handshake failed: at the connection's start (step nil), or a step's STARTTLS.
        case tlsFailed(step: Int?, TLSStream.Failure)
    }

    public enum Breakage: Equatable, Sendable {
        /// The deadline passed first.
        case timedOut
        /// The peer reset the connection.
        case reset
        /// A line outgrew the reader (64 KiB, Go's bufio.MaxScanTokenSize).
        case lineTooLong
    }

    /// Runs the conversation with `address` port `port` from `source`, within `deadline`;
    /// `host` names the server for TLS unless the settings do. The TLS peer of the last
    /// handshake is returned beside the outcome, as blackbox_exporter reports it even when a
    /// later step fails. A failing system call that says nothing about the network is thrown.
    public func run(
        to address: IPAddress, port: UInt16, host: String, from source: SocketBinding, deadline: MonotonicInstant
    ) throws -> (outcome: Outcome, peer: TLSStream.Peer?) {
        var stream: any ByteStream
        switch try TCPProbe.connect(to: address, port: port, from: source, deadline: deadline) {
        case .success(let open): stream = open
        case .failure(let failure): return (.notConnected(failure), nil)
        }
        var peer: TLSStream.Peer?
        let settings = tlsSettings
        if tls {
            switch try TLSStream.handshake(over: stream, address: address, port: port, host: host, settings: settings, deadline: deadline) {
            case .success(let session): (stream, peer) = (session, session.peer)
            case .failure(let why): return (.tlsFailed(step: nil, why), nil)
            }
        }
        var reader = LineReader()
        for (index, step) in steps.enumerated() {
            var send = step.send
            if let expect = step.expect {
                switch try reader.firstLine(matching: expect, from: stream, deadline: deadline) {
                case .matched(let match): send = expect.expand(send, with: match)
                case .ended: return (.noMatch(step: index), peer)
                case .failed(let why): return (.broken(step: index, why), peer)
                }
            }
            if !send.isEmpty, !(try stream.sendAll(Array((send + "\n").utf8), deadline: deadline)) {
                return (.broken(step: index, .timedOut), peer)
            }
            guard step.startTLS else { continue }
            switch try TLSStream.handshake(over: stream, address: address, port: port, host: host, settings: settings, deadline: deadline) {
            case .success(let session): (stream, peer) = (session, session.peer)
            case .failure(let why): return (.tlsFailed(step: index, why), peer)
            }
            // Go's prober reads on with a new bufio.Scanner: what the old one held is dropped.
            reader = LineReader()
        }
        return (.completed, peer)
    }
}

/// The lines a peer sends, as Go's bufio.Scanner with ScanLines splits them: at "\n", a
/// "\r" before it dropped, the last line without "\n" kept; a line longer than 64 KiB is an
/// error, not two lines.
struct LineReader {
    static let maximumLine = 64 * 1024
    private var buffer: [UInt8] = []
    private var ended = false

    enum Result {
        case matched(ExpectPattern.Match)
        case ended
        case failed(TCPConversation.Breakage)
    }

    /// Reads lines until one matches `pattern`.
    mutating func firstLine(matching pattern: ExpectPattern, from connection: any ByteStream, deadline: MonotonicInstant) throws -> Result {
        while true {
            switch try nextLine(from: connection, deadline: deadline) {
            case .line(let line): if let match = pattern.firstMatch(in: line) { return .matched(match) }
            case .ended: return .ended
            case .failed(let why): return .failed(why)
            }
        }
    }

    private enum Next {
        case line(String)
        case ended
        case failed(TCPConversation.Breakage)
    }

    private mutating func nextLine(from connection: any ByteStream, deadline: MonotonicInstant) throws -> Next {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = buffer[..<newline]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                defer { buffer.removeSubrange(...newline) }
                return .line(String(decoding: line, as: UTF8.self))
            }
            if buffer.count >= Self.maximumLine { return .failed(.lineTooLong) }
            if ended {
                guard !buffer.isEmpty else { return .ended }
                defer { buffer.removeAll() }
                let line = buffer.last == UInt8(ascii: "\r") ? buffer.dropLast() : buffer[...]
                return .line(String(decoding: line, as: UTF8.self))
            }
            switch try connection.receive(maximum: Self.maximumLine - buffer.count, deadline: deadline) {
            case .data(let bytes): buffer += bytes
            case .closed: ended = true
            case .timedOut: return .failed(.timedOut)
            case .reset: return .failed(.reset)
            }
        }
    }
}

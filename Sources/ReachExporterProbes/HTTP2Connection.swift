import NIOCore
import NIOHTTP2
import ReachCore
import ReachSystem

/// HTTP/2 (RFC 9113) as the exporter's probes speak it, the one transport of the http
/// prober's h2 and of gRPC's health check, over TLS or plain: SwiftNIO's HTTP/2 handler at
/// the top of a `SocketPipeline`, one request on stream 1, and that stream's frames read on
/// the probe's thread within its deadline.
struct HTTP2Connection {
    /// The stream a client's first request opens (RFC 9113, 5.1.1).
    static let stream = HTTP2StreamID(1)

    private let pipeline: SocketPipeline

    /// HTTP/2 above what `pipeline` holds: TLS whose ALPN chose "h2", or nothing, by prior
    /// knowledge (RFC 9113, 3.3). The handler queues the connection's preface (RFC 9113, 3.4:
    /// the magic and SETTINGS with `settings`), sent with the first frames.
    init(over pipeline: SocketPipeline, settings: HTTP2Settings = nioDefaultSettings) throws {
        try pipeline.add(NIOHTTP2Handler(mode: .client, initialSettings: settings))
        self.pipeline = pipeline
    }

    /// Sends `frames` in order; false when the deadline came first.
    func send(_ frames: [HTTP2Frame], deadline: MonotonicInstant) throws -> Bool {
        for frame in frames {
            guard try pipeline.send(frame, deadline: deadline) else { return false }
        }
        return true
    }

    enum Next {
        /// A frame of the request's stream.
        case frame(HTTP2Frame.FramePayload)
        /// The server's GOAWAY (RFC 9113, 6.8), with its error code.
        case goAway(HTTP2ErrorCode)
        /// No frame will come: the socket's end or reset, a frame refused, or the deadline.
        case ended(TCPConnection.ReceiveOutcome)
    }

    /// The next frame of the request's stream, or the connection's GOAWAY or end; the
    /// connection's other frames (SETTINGS, PING, WINDOW_UPDATE) are the handler's.
    func next(deadline: MonotonicInstant) throws -> Next {
        while true {
            switch try pipeline.receive(HTTP2Frame.self, deadline: deadline) {
            case .ended(let outcome): return .ended(outcome)
            case .value(let frame):
                if case .goAway(_, let code, _) = frame.payload { return .goAway(code) }
                if frame.streamID == Self.stream { return .frame(frame.payload) }
            }
        }
    }
}

import NIOCore
import NIOHTTP2
import ReachCore
import ReachSystem

/// The health check over TLS, as grpc-go's `credentials.NewTLS` dials it for blackbox_exporter
/// (`prober/grpc.go` with `tls: true`): the handshake offers "h2" by ALPN (RFC 7301, and
/// https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md), then the call runs on
/// stream 1 as HTTP2Exchange runs a request, its frames read on the probe's thread within
/// the deadline.
extension GRPCHealthCheck {
    /// The stream a client's first request opens (RFC 9113, 5.1.1).
    private static let stream = HTTP2StreamID(1)

    func callOverTLS(
        _ connection: TCPConnection, address: IPAddress, port: UInt16, host: String, settings: TLSSettings, authority: String,
        deadline: MonotonicInstant
    ) throws -> Outcome {
        var offer = settings
        offer.applicationProtocols = ["h2"]
        let tls: TLSStream
        switch try TLSStream.handshake(over: connection, address: address, port: port, host: host, settings: offer, deadline: deadline) {
        case .success(let session): tls = session
        case .failure(let why): return Outcome(statusCode: .unavailable, failure: .tls(why), detail: why.detail)
        }
        var outcome = try call(over: tls, authority: authority, deadline: deadline)
        outcome.tls = tls.peer
        return outcome
    }

    private func call(over tls: TLSStream, authority: String, deadline: MonotonicInstant) throws -> Outcome {
        try tls.add(NIOHTTP2Handler(mode: .client))
        let headers = GRPCCallResponse.requestHeaders(path: Self.path, authority: authority, scheme: "https")
        let message = ByteBuffer(bytes: GRPCHealthMessage.request(service: service))
        let frames = [
            HTTP2Frame(streamID: Self.stream, payload: .headers(.init(headers: headers))),
            HTTP2Frame(streamID: Self.stream, payload: .data(.init(data: .byteBuffer(message), endStream: true))),
        ]
        for frame in frames {
            guard try tls.send(frame, deadline: deadline) else { return Self.timedOut }
        }
        var response = GRPCCallResponse()
        while true {
            switch try tls.receive(HTTP2Frame.self, deadline: deadline) {
            case .value(let frame):
                if case .goAway(_, let code, _) = frame.payload {
                    let detail = "the server ended the connection (GOAWAY \(code))"
                    return Outcome(statusCode: .unavailable, failure: .connectionFailed, detail: detail)
                }
                if frame.streamID == Self.stream, response.take(frame.payload) { return response.outcome }
            case .ended(.timedOut):
                return Self.timedOut
            case .ended:
                return Outcome(statusCode: .unavailable, failure: .connectionFailed, detail: "the connection closed before the answer")
            }
        }
    }

    /// What a call that ran out of time ends with (grpc-go: DEADLINE_EXCEEDED).
    static let timedOut = Outcome(statusCode: .deadlineExceeded, failure: .timedOut, detail: "no answer before the deadline")
}

import NIOCore
import NIOHTTP2
import ReachCore
import ReachSystem

/// The health check over TLS, as grpc-go's `credentials.NewTLS` dials it for blackbox_exporter
/// (`prober/grpc.go` with `tls: true`): the handshake offers "h2" by ALPN (RFC 7301, and
/// https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md), then the call runs as
/// it runs in plain, on stream 1 of an `HTTP2Connection`, its frames read on the probe's
/// thread within the deadline.
extension GRPCHealthCheck {
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
        var outcome = try call(over: HTTP2Connection(over: tls.pipeline), scheme: "https", authority: authority, deadline: deadline)
        outcome.tls = tls.peer
        return outcome
    }

    /// The request's HEADERS and its one DATA frame (END_STREAM), then the response's frames
    /// gathered until the server ends the stream; a GOAWAY ends the call.
    func call(over connection: HTTP2Connection, scheme: String, authority: String, deadline: MonotonicInstant) throws -> Outcome {
        let headers = GRPCCallResponse.requestHeaders(path: Self.path, authority: authority, scheme: scheme)
        let message = ByteBuffer(bytes: GRPCHealthMessage.request(service: service))
        let frames = [
            HTTP2Frame(streamID: HTTP2Connection.stream, payload: .headers(.init(headers: headers))),
            HTTP2Frame(streamID: HTTP2Connection.stream, payload: .data(.init(data: .byteBuffer(message), endStream: true))),
        ]
        guard try connection.send(frames, deadline: deadline) else { return Self.timedOut }
        var response = GRPCCallResponse()
        while true {
            switch try connection.next(deadline: deadline) {
            case .frame(let payload):
                if response.take(payload) { return response.outcome }
            case .goAway(let code):
                let detail = "the server ended the connection (GOAWAY \(code))"
                return Outcome(statusCode: .unavailable, failure: .connectionFailed, detail: detail)
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

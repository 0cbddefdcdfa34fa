import NIOCore
import NIOHPACK
import NIOHTTP2
import ReachCore
import ReachSystem

/// One request over HTTP/2 (RFC 9113) on a TLS session whose ALPN chose "h2", as
/// blackbox_exporter's Go client sends it when enable_http2 is on: the request on stream 1
/// of an `HTTP2Connection` above TLS, frames read until that stream ends, on the probe's
/// thread and within its deadline as HTTP/1.1 is.
enum HTTP2Exchange {
    /// The flow-control window granted to the server, for the stream and the connection:
    /// beyond what is kept of a response (`HTTPResponse.responseLimit`), so the server is
    /// never left waiting for a WINDOW_UPDATE (RFC 9113, 6.9) that this reader would not send.
    private static let window = HTTPResponse.responseLimit + 64 * 1024

    static func run(_ request: HTTPExchange.Request, over tls: TLSStream, deadline: MonotonicInstant, phases: inout HTTPProbe.Phases)
        throws -> HTTPProbe.Outcome
    {
        let processingStart = MonotonicInstant.now()
        let connection = try HTTP2Connection(
            over: tls.pipeline, settings: nioDefaultSettings + [HTTP2Setting(parameter: .initialWindowSize, value: window)])
        guard try connection.send(frames(of: request), deadline: deadline) else { return .timedOut("timed out sending the request") }
        var response: HTTPResponse?
        var firstByte: MonotonicInstant?
        while true {
            let payload: HTTP2Frame.FramePayload
            switch try connection.next(deadline: deadline) {
            case .frame(let next): payload = next
            case .goAway(let code):
                if response == nil || code != .noError { return .noResponse("the server ended the connection (GOAWAY \(code))") }
                continue
            case .ended(.timedOut):
                return .timedOut(response == nil ? "timed out waiting for a response" : "timed out reading the response")
            case .ended:
                return .noResponse(response == nil ? "connection closed with no response" : "connection closed inside the response")
            }
            if firstByte == nil {
                let now = MonotonicInstant.now()
                firstByte = now
                phases.processing += now - processingStart
            }
            var ended = false
            switch payload {
            case .headers(let payload):
                ended = payload.endStream
                if response == nil {
                    guard let head = Self.response(payload.headers) else { return .malformed("no :status in the response's headers") }
                    // 1xx are interim (RFC 9110, 15.2): the final response's HEADERS follow.
                    if head.statusCode >= 200 { response = head }
                }
            case .data(let payload):
                ended = payload.endStream
                guard response != nil else { return .malformed("DATA before the response's headers") }
                if case .byteBuffer(let buffer) = payload.data, response!.body.count < HTTPResponse.bodyLimit {
                    response!.body += buffer.readableBytesView.prefix(HTTPResponse.bodyLimit - response!.body.count)
                }
                if response!.body.count >= HTTPResponse.bodyLimit { ended = true }
            case .rstStream(let code): return .noResponse("the server reset the stream (\(code))")
            default: break
            }
            if ended, let response {
                if let firstByte { phases.transfer += MonotonicInstant.now() - firstByte }
                return .response(response, version: 2.0)
            }
        }
    }

    /// The connection's window raised to match the stream's (the preface's SETTINGS carry
    /// that), the request's HEADERS and its DATA.
    private static func frames(of request: HTTPExchange.Request) -> [HTTP2Frame] {
        let connectionWindow = HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: window - 65_535))
        let headers = HTTP2Frame(
            streamID: HTTP2Connection.stream,
            payload: .headers(.init(headers: Self.headers(of: request), endStream: request.body.isEmpty)))
        var frames = [connectionWindow, headers]
        if !request.body.isEmpty {
            let body = HTTP2Frame.FramePayload.Data(data: .byteBuffer(ByteBuffer(bytes: request.body)), endStream: true)
            frames.append(HTTP2Frame(streamID: HTTP2Connection.stream, payload: .data(body)))
        }
        return frames
    }

    /// RFC 9113, 8.3.1 and 8.2.2: the pseudo-header fields first, names in lower case, and
    /// none of the connection-specific fields (Host becomes :authority).
    private static func headers(of request: HTTPExchange.Request) -> HPACKHeaders {
        let authority = request.fields.first { $0.name.lowercased() == "host" }?.value ?? ""
        var headers = HPACKHeaders([(":method", request.method), (":scheme", "https"), (":authority", authority), (":path", request.path)])
        let connectionSpecific: Set<String> = ["host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]
        for field in request.fields where !connectionSpecific.contains(field.name.lowercased()) {
            headers.add(name: field.name.lowercased(), value: field.value)
        }
        return headers
    }

    private static func response(_ headers: HPACKHeaders) -> HTTPResponse? {
        guard let status = headers.first(name: ":status").flatMap({ Int($0) }), (100...999).contains(status) else { return nil }
        let fields = headers.filter { !$0.name.hasPrefix(":") }.map { (name: $0.name, value: $0.value) }
        return HTTPResponse(statusCode: status, headers: fields, body: [])
    }
}

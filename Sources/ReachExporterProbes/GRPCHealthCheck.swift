import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import ReachCore
import ReachSystem

/// gRPC's health check (`grpc.health.v1.Health/Check`,
/// https://github.com/grpc/grpc/blob/master/doc/health-checking.md) as blackbox_exporter's
/// grpc prober asks it (`prober/grpc.go`): one unary call over HTTP/2 without TLS, prior
/// knowledge (RFC 9113, 3.3), on a connection made as the tcp prober makes it (`TCPProbe`:
/// the same route verdicts), then handed to SwiftNIO's HTTP/2.
public struct GRPCHealthCheck: Sendable {
    /// The service asked about; "" for the server as a whole.
    public var service: String

    public init(service: String) {
        self.service = service
    }

    /// What the call ended with: grpc-go's status code for it, as blackbox_exporter's
    /// probe_grpc_status_code reports, and the serving status when a response came.
    public struct Outcome: Equatable, Sendable {
        public var statusCode: GRPCStatusCode
        public var servingStatus: GRPCHealthMessage.ServingStatus?
        /// How the call failed; nil when it answered OK.
        public var failure: Failure?
        /// Why, one line (the server's grpc-message unescaped); nil when it answered OK.
        public var detail: String?

        public enum Failure: Equatable, Sendable {
            /// No connection came (statusCode is then UNAVAILABLE).
            case notConnected(TCPProbe.Failure)
            /// No answer before the deadline (DEADLINE_EXCEEDED).
            case timedOut
            /// The HTTP/2 connection failed or closed before the answer (UNAVAILABLE).
            case connectionFailed
            /// The call ended with a status other than OK: the server's, or the one grpc-go
            /// gives a reset stream, an HTTP error or an answer that does not decode.
            case status
        }

        public init(
            statusCode: GRPCStatusCode, servingStatus: GRPCHealthMessage.ServingStatus? = nil, failure: Failure? = nil,
            detail: String? = nil
        ) {
            self.statusCode = statusCode
            self.servingStatus = servingStatus
            self.failure = failure
            self.detail = detail
        }
    }

    /// The event loop every probe's HTTP/2 connection runs on: one thread, asleep in epoll
    /// while no call is under way; the probes wait on their calls from the exporter's pool.
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Calls Check on `address` port `port`, `authority` as the request's :authority (the
    /// target as written, as grpc-go sends it), within `deadline`. A failing system call
    /// that says nothing about the network is thrown.
    public func run(to address: IPAddress, port: UInt16, authority: String, deadline: MonotonicInstant) throws -> Outcome {
        let connection: TCPConnection
        switch try TCPProbe.connect(to: address, port: port, deadline: deadline) {
        case .success(let open): connection = open
        case .failure(let failure): return Outcome(statusCode: .unavailable, failure: .notConnected(failure), detail: failure.detail)
        }
        let channel: Channel
        do {
            channel = try ClientBootstrap(group: Self.group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                            mode: .client, connectionConfiguration: .init(), streamConfiguration: .init(),
                            inboundStreamInitializer: { $0.close() })
                        try channel.pipeline.syncOperations.addHandler(CloseOnConnectionError())
                    }
                }
                .withConnectedSocket(connection.releaseDescriptor()).wait()
        } catch {
            return Outcome(statusCode: .unavailable, failure: .connectionFailed, detail: "the HTTP/2 connection could not start: \(error)")
        }
        defer { channel.close(promise: nil) }
        let answer = channel.eventLoop.makePromise(of: GRPCCallResponse.self)
        let request = GRPCHealthMessage.request(service: service)
        let path = "/grpc.health.v1.Health/Check"
        channel.eventLoop.execute {
            do {
                let multiplexer = try channel.pipeline.syncOperations.handler(type: NIOHTTP2Handler.self).syncMultiplexer()
                multiplexer.createStreamChannel { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(
                            GRPCUnaryCallHandler(path: path, authority: authority, message: request, answer: answer))
                    }
                }.whenFailure { answer.fail($0) }
            } catch {
                answer.fail(error)
            }
        }
        let timer = channel.eventLoop.scheduleTask(in: .nanoseconds(deadline.remaining(from: .now()).nanoseconds)) {
            answer.fail(GRPCCallResponse.TimedOut())
        }
        defer { timer.cancel() }
        do {
            return try answer.futureResult.wait().outcome
        } catch is GRPCCallResponse.TimedOut {
            return Outcome(statusCode: .deadlineExceeded, failure: .timedOut, detail: "no answer before the deadline")
        } catch {
            return Outcome(statusCode: .unavailable, failure: .connectionFailed, detail: "the HTTP/2 connection failed: \(error)")
        }
    }
}

/// grpc-go's status codes (`codes/codes.go`; the numbers of
/// https://github.com/grpc/grpc/blob/master/doc/statuscodes.md) the prober reports; any
/// other number a server sends survives as itself.
public struct GRPCStatusCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let ok = GRPCStatusCode(rawValue: 0)
    public static let unknown = GRPCStatusCode(rawValue: 2)
    public static let deadlineExceeded = GRPCStatusCode(rawValue: 4)
    public static let notFound = GRPCStatusCode(rawValue: 5)
    public static let permissionDenied = GRPCStatusCode(rawValue: 7)
    public static let resourceExhausted = GRPCStatusCode(rawValue: 8)
    public static let unimplemented = GRPCStatusCode(rawValue: 12)
    public static let `internal` = GRPCStatusCode(rawValue: 13)
    public static let unavailable = GRPCStatusCode(rawValue: 14)
    public static let unauthenticated = GRPCStatusCode(rawValue: 16)
}

/// What one call's stream brought: the response's :status, grpc-status and grpc-message
/// (in the trailers, or in a trailers-only response), and the DATA bytes.
struct GRPCCallResponse: Sendable {
    struct TimedOut: Error {}

    /// A health check's answer is a few bytes; more than this is no health check.
    static let bodyLimit = 4096

    var httpStatus: Int?
    var grpcStatus: Int?
    var grpcMessage: String?
    var body: [UInt8] = []
    /// The stream was reset (RST_STREAM) with this HTTP/2 error code.
    var reset: HTTP2ErrorCode?

    /// grpc-go's reading of the stream (`internal/transport/http2_client.go`, `http_util.go`):
    /// a reset stream or a :status other than 200 gives a code of its own; no grpc-status
    /// is INTERNAL; OK with a response that does not decode is INTERNAL.
    var outcome: GRPCHealthCheck.Outcome {
        if let reset {
            let code: GRPCStatusCode = switch reset {
            case .refusedStream: .unavailable
            case .cancel: GRPCStatusCode(rawValue: 1)
            case .flowControlError, .enhanceYourCalm: .resourceExhausted
            case .inadequateSecurity: .permissionDenied
            default: .internal
            }
            return .init(statusCode: code, failure: .status, detail: "the server reset the stream: \(reset)")
        }
        guard let httpStatus, httpStatus == 200 else {
            let code: GRPCStatusCode = switch httpStatus {
            case 400: .internal
            case 401: .unauthenticated
            case 403: .permissionDenied
            case 404: .unimplemented
            case 429, 502, 503, 504: .unavailable
            default: .unknown
            }
            let shown = httpStatus.map(String.init) ?? "missing"
            return .init(statusCode: code, failure: .status, detail: "HTTP status \(shown) for a gRPC call")
        }
        guard let grpcStatus else { return .init(statusCode: .internal, failure: .status, detail: "the server sent no grpc-status") }
        guard grpcStatus == 0 else {
            let message = grpcMessage.map { ": \($0)" } ?? ""  // as sent: whoever prints it escapes it
            return .init(statusCode: GRPCStatusCode(rawValue: grpcStatus), failure: .status, detail: "grpc-status \(grpcStatus)\(message)")
        }
        do {
            return .init(statusCode: .ok, servingStatus: try GRPCHealthMessage.status(fromFramed: body))
        } catch {
            return .init(statusCode: .internal, failure: .status, detail: "the health check response does not decode: \(error)")
        }
    }
}

/// One unary call on its own HTTP/2 stream: the request's HEADERS and its one DATA frame
/// (END_STREAM), then the response gathered until the server ends the stream.
final class GRPCUnaryCallHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let path: String
    private let authority: String
    private let message: [UInt8]
    private let answer: EventLoopPromise<GRPCCallResponse>
    private var response = GRPCCallResponse()
    private var sent = false

    init(path: String, authority: String, message: [UInt8], answer: EventLoopPromise<GRPCCallResponse>) {
        self.path = path
        self.authority = authority
        self.message = message
        self.answer = answer
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { send(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        send(context: context)
        context.fireChannelActive()
    }

    /// The request as https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md has it:
    /// POST, the method's path, `content-type: application/grpc` and `te: trailers`.
    private func send(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        let headers: HPACKHeaders = [
            ":method": "POST", ":scheme": "http", ":path": path, ":authority": authority,
            "content-type": "application/grpc", "te": "trailers", "user-agent": "reach-exporter/1",
        ]
        context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
        let data = HTTP2Frame.FramePayload.Data(data: .byteBuffer(context.channel.allocator.buffer(bytes: message)), endStream: true)
        context.writeAndFlush(wrapOutboundOut(.data(data)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            if response.httpStatus == nil { response.httpStatus = frame.headers.first(name: ":status").flatMap { Int($0) } }
            if let status = frame.headers.first(name: "grpc-status") {
                response.grpcStatus = Int(status) ?? GRPCStatusCode.unknown.rawValue
                response.grpcMessage = frame.headers.first(name: "grpc-message")
            }
            if frame.endStream { answer.succeed(response) }
        case .data(let frame):
            if case .byteBuffer(var buffer) = frame.data {
                guard response.body.count + buffer.readableBytes <= GRPCCallResponse.bodyLimit else {
                    response.reset = .internalError
                    answer.succeed(response)
                    context.close(promise: nil)
                    return
                }
                response.body += buffer.readBytes(length: buffer.readableBytes) ?? []
            }
            if frame.endStream { answer.succeed(response) }
        case .rstStream(let code):
            response.reset = code
            answer.succeed(response)
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        answer.fail(ChannelError.eof)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        answer.fail(error)
        context.close(promise: nil)
    }
}

/// Closes the connection on an error of the connection as a whole (a server that does not
/// speak HTTP/2: its first bytes are no SETTINGS frame, RFC 9113, 3.4): NIOHTTP2 reports it
/// on the connection's pipeline only, and the call's stream learns of it as its closing.
final class CloseOnConnectionError: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}

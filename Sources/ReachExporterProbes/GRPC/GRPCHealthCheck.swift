import NIOCore
import NIOHPACK
import NIOHTTP2
import ReachCore
import ReachSystem

/// gRPC's health check (`grpc.health.v1.Health/Check`,
/// https://github.com/grpc/grpc/blob/master/doc/health-checking.md) as blackbox_exporter's
/// grpc prober asks it (`prober/grpc.go`): one unary call over HTTP/2, on a connection made
/// as the tcp prober makes it (`TCPProbe`: the same route verdicts). The call runs on stream
/// 1 of an `HTTP2Connection`: without TLS, by prior knowledge (RFC 9113, 3.3), on the
/// socket itself; with TLS, over a `TLSStream` that offers "h2" by ALPN
/// (GRPCHealthCheck+TLS.swift).
public struct GRPCHealthCheck: Sendable {
    /// The service asked about; "" for the server as a whole.
    public var service: String
    /// tls_config when the module says `tls: true`; nil: plaintext.
    public var tls: TLSSettings?

    public init(service: String, tls: TLSSettings? = nil) {
        self.service = service
        self.tls = tls
    }

    static let path = "/grpc.health.v1.Health/Check"

    /// What the call ended with: grpc-go's status code for it, as blackbox_exporter's
    /// probe_grpc_status_code reports, and the serving status when a response came.
    public struct Outcome: Equatable, Sendable {
        public var statusCode: GRPCStatusCode
        public var servingStatus: GRPCHealthMessage.ServingStatus?
        /// How the call failed; nil when it answered OK.
        public var failure: Failure?
        /// Why, one line (the server's grpc-message unescaped); nil when it answered OK.
        public var detail: String?
        /// The TLS session's peer, once a handshake succeeded.
        public var tls: TLSStream.Peer?

        public enum Failure: Equatable, Sendable {
            /// No connection came (statusCode is then UNAVAILABLE).
            case notConnected(TCPProbe.Failure)
            /// No answer before the deadline (DEADLINE_EXCEEDED).
            case timedOut
            /// The HTTP/2 connection failed or closed before the answer (UNAVAILABLE).
            case connectionFailed
            /// The TLS handshake failed (UNAVAILABLE).
            case tls(TLSStream.Failure)
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

    /// Calls Check on `address` port `port` from `source`, `authority` as the request's
    /// :authority (the target as written, as grpc-go sends it), within `deadline`. A failing
    /// system call that says nothing about the network is thrown.
    /// With TLS, the server is named `host` unless tls_config names it (blackbox_exporter
    /// sets ServerName to the target's host).
    public func run(
        to address: IPAddress, port: UInt16, host: String, authority: String, from source: SocketBinding = .unbound,
        deadline: MonotonicInstant
    ) throws -> Outcome {
        let connection: TCPConnection
        switch try TCPProbe.connect(to: address, port: port, from: source, deadline: deadline) {
        case .success(let open): connection = open
        case .failure(let failure): return Outcome(statusCode: .unavailable, failure: .notConnected(failure), detail: failure.detail)
        }
        if let tls {
            return try callOverTLS(
                connection, address: address, port: port, host: host, settings: tls, authority: authority, deadline: deadline)
        }
        let plain: HTTP2Connection
        do {
            plain = try HTTP2Connection(over: SocketPipeline(over: connection, to: address, port: port, handlers: []))
        } catch {
            return Outcome(statusCode: .unavailable, failure: .connectionFailed, detail: "the HTTP/2 connection could not start: \(error)")
        }
        return try call(over: plain, scheme: "http", authority: authority, deadline: deadline)
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
    /// A health check's answer is a few bytes; more than this is no health check.
    static let bodyLimit = 4096

    var httpStatus: Int?
    var grpcStatus: Int?
    var grpcMessage: String?
    var body: [UInt8] = []
    /// The stream was reset (RST_STREAM) with this HTTP/2 error code.
    var reset: HTTP2ErrorCode?

    /// The request's fields as https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md
    /// has them: POST, the method's path, `content-type: application/grpc`, `te: trailers`.
    static func requestHeaders(path: String, authority: String, scheme: String) -> HPACKHeaders {
        [
            ":method": "POST", ":scheme": scheme, ":path": path, ":authority": authority,
            "content-type": "application/grpc", "te": "trailers", "user-agent": "reach-exporter/1",
        ]
    }

    /// Takes one frame of the call's stream; true when the call has ended with it (END_STREAM,
    /// RST_STREAM, or more DATA than a health check sends, taken as an INTERNAL reset).
    mutating func take(_ payload: HTTP2Frame.FramePayload) -> Bool {
        switch payload {
        case .headers(let frame):
            if httpStatus == nil { httpStatus = frame.headers.first(name: ":status").flatMap { Int($0) } }
            if let status = frame.headers.first(name: "grpc-status") {
                grpcStatus = Int(status) ?? GRPCStatusCode.unknown.rawValue
                grpcMessage = frame.headers.first(name: "grpc-message")
            }
            return frame.endStream
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data {
                guard body.count + buffer.readableBytes <= Self.bodyLimit else {
                    reset = .internalError
                    return true
                }
                body += buffer.readableBytesView
            }
            return frame.endStream
        case .rstStream(let code):
            reset = code
            return true
        default:
            return false
        }
    }

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

import XCTest

@testable import ReachExporterProbes

/// The health check's two messages, against bytes grpcio's own encoder gives
/// (`health_pb2.HealthCheckRequest(service="up").SerializeToString()` and the like), and the
/// call's ending read as grpc-go reads it.
final class GRPCHealthMessageTests: XCTestCase {
    func testRequestIsFramedFieldOne() {
        XCTAssertEqual(GRPCHealthMessage.request(service: "up"), [
            0x00,  // not compressed
            0x00, 0x00, 0x00, 0x04,  // 4 bytes follow
            0x0A,  // field 1, length-delimited
            0x02, 0x75, 0x70,  // "up"
        ])
        // The whole server: an empty message (proto3 leaves the default out).
        XCTAssertEqual(GRPCHealthMessage.request(service: ""), [0x00, 0x00, 0x00, 0x00, 0x00])
        // A name of 200 bytes: its length is a two-byte varint (0xC8 0x01).
        let long = GRPCHealthMessage.request(service: String(repeating: "s", count: 200))
        XCTAssertEqual(Array(long[0..<8]), [0x00, 0x00, 0x00, 0x00, 0xCB, 0x0A, 0xC8, 0x01])
        XCTAssertEqual(long.count, 5 + 3 + 200)
    }

    func testResponseStatuses() throws {
        // SERVING: field 1, varint, 1.
        XCTAssertEqual(try GRPCHealthMessage.status(fromFramed: [0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x01]), .serving)
        XCTAssertEqual(try GRPCHealthMessage.status(fromFramed: [0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02]), .notServing)
        // UNKNOWN is the default: an empty message.
        XCTAssertEqual(try GRPCHealthMessage.status(fromFramed: [0x00, 0x00, 0x00, 0x00, 0x00]), .unknown)
        // Unknown fields of every wire type are skipped: field 2 varint, field 3 bytes, field 4
        // fixed64, field 5 fixed32, then the status.
        let withUnknown: [UInt8] = [0x10, 0x07, 0x1A, 0x01, 0x41, 0x21] + [UInt8](repeating: 0, count: 8) + [0x2D, 0, 0, 0, 0, 0x08, 0x03]
        let framed = [0x00, 0x00, 0x00, 0x00, UInt8(withUnknown.count)] + withUnknown
        XCTAssertEqual(try GRPCHealthMessage.status(fromFramed: framed), .serviceUnknown)
        // A number the enum does not name survives, without a name.
        let other = try GRPCHealthMessage.status(fromFramed: [0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x09])
        XCTAssertEqual(other.rawValue, 9)
        XCTAssertNil(other.name)
        XCTAssertEqual(GRPCHealthMessage.ServingStatus.named.map(\.name), ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"])
    }

    func testBrokenResponsesAreErrorsNotTraps() {
        let broken: [[UInt8]] = [
            [], [0x00, 0x00], [0x01, 0x00, 0x00, 0x00, 0x00],  // short; compressed
            [0x00, 0x00, 0x00, 0x00, 0x05, 0x08, 0x01],  // the prefix says more than came
            [0x00, 0x00, 0x00, 0x00, 0x01, 0x08],  // a key without its value
            [0x00, 0x00, 0x00, 0x00, 0x02, 0x1A, 0x7F],  // bytes longer than the message
            [0x00, 0x00, 0x00, 0x00, 0x01, 0x0B],  // wire type 3 (a group)
            [0x00, 0x00, 0x00, 0x00, 0x0B, 0x08] + [UInt8](repeating: 0xFF, count: 10),  // an 11-byte varint
        ]
        for bytes in broken {
            XCTAssertThrowsError(try GRPCHealthMessage.status(fromFramed: bytes), "\(bytes)")
        }
    }

    /// grpc-go's reading of the stream's ending (`internal/transport/http2_client.go`).
    func testCallEndingsAsGRPCGoReadsThem() {
        var answer = GRPCCallResponse(httpStatus: 200, grpcStatus: 0, body: [0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x01])
        XCTAssertEqual(answer.outcome, .init(statusCode: .ok, servingStatus: .serving))
        // Trailers-only, NOT_FOUND: grpcio's answer for a service it does not know.
        answer = GRPCCallResponse(httpStatus: 200, grpcStatus: 5, grpcMessage: "unknown service")
        XCTAssertEqual(answer.outcome.statusCode, .notFound)
        XCTAssertEqual(answer.outcome.failure, .status)
        XCTAssertNil(answer.outcome.servingStatus)
        XCTAssertEqual(GRPCCallResponse(httpStatus: 404).outcome.statusCode, .unimplemented)
        XCTAssertEqual(GRPCCallResponse(httpStatus: 503).outcome.statusCode, .unavailable)
        XCTAssertEqual(GRPCCallResponse(httpStatus: 500).outcome.statusCode, .unknown)
        XCTAssertEqual(GRPCCallResponse(httpStatus: 200).outcome.statusCode, .internal)  // no grpc-status
        XCTAssertEqual(GRPCCallResponse(httpStatus: 200, grpcStatus: 0, body: [0x01]).outcome.statusCode, .internal)
        XCTAssertEqual(GRPCCallResponse(reset: .refusedStream).outcome.statusCode, .unavailable)
        XCTAssertEqual(GRPCCallResponse(reset: .cancel).outcome.statusCode.rawValue, 1)
        XCTAssertEqual(GRPCCallResponse(reset: .protocolError).outcome.statusCode, .internal)
    }
}

/// The two messages of gRPC's health-checking protocol
/// (https://github.com/grpc/grpc/blob/master/doc/health-checking.md, and
/// `src/proto/grpc/health/v1/health.proto` there), encoded by hand: `HealthCheckRequest` is
/// field 1, the service name, a string; `HealthCheckResponse` is field 1, the serving
/// status, an enum. Protocol Buffers' wire format (protobuf.dev, "Encoding"): a key (field
/// number << 3 | wire type) as a varint, then the value. Each travels in gRPC's
/// Length-Prefixed-Message (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md):
/// a compressed flag byte, the length as four bytes big-endian, the message.
public enum GRPCHealthMessage {
    /// `grpc.health.v1.HealthCheckResponse.ServingStatus`; a number the enum does not name
    /// survives as itself.
    public struct ServingStatus: RawRepresentable, Hashable, Sendable {
        public var rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        public static let unknown = ServingStatus(rawValue: 0)
        public static let serving = ServingStatus(rawValue: 1)
        public static let notServing = ServingStatus(rawValue: 2)
        public static let serviceUnknown = ServingStatus(rawValue: 3)

        /// Every status the protocol names, with the name the .proto gives it.
        public static let named: [(status: ServingStatus, name: String)] = [
            (.unknown, "UNKNOWN"), (.serving, "SERVING"), (.notServing, "NOT_SERVING"), (.serviceUnknown, "SERVICE_UNKNOWN"),
        ]

        /// The .proto's name; nil for a number it does not name.
        public var name: String? { Self.named.first { $0.status == self }?.name }
    }

    public struct DecodeError: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The request for `service` ("" asks about the server as a whole), framed.
    public static func request(service: String) -> [UInt8] {
        var message: [UInt8] = []
        // proto3 leaves a field at its default (the empty string) out.
        if !service.isEmpty {
            message.append(1 << 3 | 2)  // field 1, length-delimited
            appendVarint(UInt64(service.utf8.count), to: &message)
            message += service.utf8
        }
        let length = UInt32(message.count)
        return [0, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + message
    }

    /// The serving status in one framed response (the DATA frames' bytes, together). Fields
    /// other than 1 are skipped, as any protobuf reader does; a status absent is UNKNOWN (0).
    public static func status(fromFramed bytes: [UInt8]) throws(DecodeError) -> ServingStatus {
        guard bytes.count >= 5 else {
            throw DecodeError(description: "a gRPC message of \(bytes.count) bytes, shorter than its 5-byte prefix")
        }
        guard bytes[0] == 0 else { throw DecodeError(description: "a compressed gRPC message, which was not asked for") }
        let length = Int(bytes[1]) << 24 | Int(bytes[2]) << 16 | Int(bytes[3]) << 8 | Int(bytes[4])
        guard bytes.count - 5 == length else {
            throw DecodeError(description: "a gRPC message of \(bytes.count - 5) bytes whose prefix says \(length)")
        }
        return try status(fromMessage: bytes[5...])
    }

    static func status(fromMessage message: ArraySlice<UInt8>) throws(DecodeError) -> ServingStatus {
        var reader = message
        var status = ServingStatus.unknown
        while !reader.isEmpty {
            let key = try varint(&reader)
            let field = key >> 3
            switch key & 7 {
            case 0:
                let value = try varint(&reader)
                if field == 1 { status = ServingStatus(rawValue: value) }
            case 1: try skip(8, &reader)
            case 2:
                let length = try varint(&reader)
                guard length <= UInt64(reader.count) else { throw DecodeError(description: "a field longer than the message") }
                try skip(Int(length), &reader)
            case 5: try skip(4, &reader)
            default: throw DecodeError(description: "wire type \(key & 7) in the health check response")
            }
        }
        return status
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func varint(_ reader: inout ArraySlice<UInt8>) throws(DecodeError) -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            guard let byte = reader.popFirst() else { throw DecodeError(description: "a varint cut short") }
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte < 0x80 { return value }
        }
        throw DecodeError(description: "a varint longer than 10 bytes")
    }

    private static func skip(_ count: Int, _ reader: inout ArraySlice<UInt8>) throws(DecodeError) {
        guard count <= reader.count else { throw DecodeError(description: "a field longer than the message") }
        reader = reader.dropFirst(count)
    }
}

import CBrotli
import CZlib

/// The content codings of blackbox_exporter's `compression` (RFC 9110, 8.4.1), decoded by
/// the system's zlib and libbrotli. The exporter's only: `reach` links neither.
public enum ContentCoding: String, CaseIterable, Sendable {
    case gzip
    /// Raw DEFLATE (RFC 1951), which blackbox_exporter's Go reader (`compress/flate`)
    /// expects, or the zlib format (RFC 1950) that RFC 9110 names, told by its header.
    case deflate
    case br
    case identity

    /// Why a body did not decode.
    public struct Failure: Error, Equatable, Sendable {
        public var message: String
    }

    /// `bytes` decoded, at most `limit` bytes of it kept, so that a small body that inflates
    /// to gigabytes stops there. `complete` false: `bytes` is only the body's start, whose
    /// end is no error.
    public func decode(_ bytes: [UInt8], limit: Int, complete: Bool = true) -> Result<[UInt8], Failure> {
        switch self {
        case .identity: .success(Array(bytes.prefix(limit)))
        case .gzip: Self.inflate(bytes, windowBits: 15 + 16, limit: limit, complete: complete)
        case .deflate: Self.inflate(bytes, windowBits: Self.hasZlibHeader(bytes) ? 15 : -15, limit: limit, complete: complete)
        case .br: Self.brotli(bytes, limit: limit, complete: complete)
        }
    }

    /// RFC 1950, 2.2: CM 8 (deflate), a window of at most 32 KiB, and CMF·256 + FLG a
    /// multiple of 31.
    static func hasZlibHeader(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] & 0x0F == 8 && bytes[0] >> 4 <= 7 && (Int(bytes[0]) << 8 | Int(bytes[1])) % 31 == 0
    }

    private static let chunk = 16 * 1024

    /// zlib's inflate (`zlib.h`): windowBits 31 reads gzip (RFC 1952), 15 zlib, -15 raw.
    private static func inflate(_ bytes: [UInt8], windowBits: Int32, limit: Int, complete: Bool) -> Result<[UInt8], Failure> {
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return .failure(Failure(message: "zlib: inflateInit2 failed"))
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        return bytes.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(input.count)
            while true {
                let status = buffer.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                output += buffer[..<(chunk - Int(stream.avail_out))]
                if output.count >= limit || status == Z_STREAM_END { return .success(Array(output.prefix(limit))) }
                switch status {
                case Z_OK where stream.avail_in > 0 || stream.avail_out == 0: continue
                case Z_OK, Z_BUF_ERROR:
                    return complete ? .failure(Failure(message: "the compressed body ends before its end")) : .success(output)
                default:
                    let why = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                    return .failure(Failure(message: "zlib: \(why)"))
                }
            }
        }
    }

    /// libbrotli's streaming decoder (`brotli/decode.h`), RFC 7932.
    private static func brotli(_ bytes: [UInt8], limit: Int, complete: Bool) -> Result<[UInt8], Failure> {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { return .failure(Failure(message: "brotli: no decoder")) }
        defer { BrotliDecoderDestroyInstance(state) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        return bytes.withUnsafeBufferPointer { input in
            var nextIn = input.baseAddress
            var availableIn = input.count
            while true {
                var availableOut = chunk
                let result = buffer.withUnsafeMutableBufferPointer { out in
                    var nextOut = out.baseAddress
                    return BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                }
                output += buffer[..<(chunk - availableOut)]
                if output.count >= limit || result == BROTLI_DECODER_RESULT_SUCCESS { return .success(Array(output.prefix(limit))) }
                switch result {
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
                    return complete ? .failure(Failure(message: "the compressed body ends before its end")) : .success(output)
                default:
                    let why = String(cString: BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state)))
                    return .failure(Failure(message: "brotli: \(why)"))
                }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// inet_pton / inet_ntop: the strict literal forms the kernel's own tools accept.
enum AddressConversion {
    static func bytes(ofLiteral text: String, family: AddressFamily) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: family.addressLength)
        let result = buffer.withUnsafeMutableBytes { inet_pton(family.kernelValue, text, $0.baseAddress) }
        return result == 1 ? buffer : nil
    }

    static func text(of bytes: [UInt8], family: AddressFamily) -> String {
        var output = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family.kernelValue, raw.baseAddress, &output, socklen_t(output.count)) != nil
        }
        return ok ? string(fromNulTerminated: output) : "?"
    }
}

/// The text of a C string a call wrote into `buffer` (up to its NUL).
func string(fromNulTerminated buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

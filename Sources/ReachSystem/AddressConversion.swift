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
        if family == .ipv4 && bytes.count == 4 { return dottedQuad(bytes) }
        var output = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family.kernelValue, raw.baseAddress, &output, socklen_t(output.count)) != nil
        }
        return ok ? string(fromNulTerminated: output) : "?"
    }
}

extension AddressConversion {
    /// An IPv4 address as inet_ntop writes it (four decimal numbers, no leading zeros),
    /// without the sprintf glibc's inet_ntop4 formats it with: a list prints three a target.
    static func dottedQuad(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(15)
        appendDottedQuad(bytes, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The same text appended to UTF-8 bytes (a list's output is written as bytes).
    /// Written into a buffer on the stack, then appended at once: appended digit by digit,
    /// each append checked the array's uniqueness and capacity anew (perf).
    static func appendDottedQuad(_ bytes: [UInt8], to text: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 15) { buffer in
            var count = 0
            func put(_ digit: UInt8) {
                buffer[count] = digit
                count += 1
            }
            for index in 0..<min(4, bytes.count) {
                let byte = bytes[index]
                if index > 0 { put(UInt8(ascii: ".")) }
                if byte >= 100 { put(UInt8(ascii: "0") + byte / 100) }
                if byte >= 10 { put(UInt8(ascii: "0") + byte / 10 % 10) }
                put(UInt8(ascii: "0") + byte % 10)
            }
            text.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }
}

/// The text of a C string a call wrote into `buffer` (up to its NUL).
func string(fromNulTerminated buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The bytes libFuzzer hands to `LLVMFuzzerTestOneInput`, copied into an array: the
/// parsers under test take arrays and strings, as they do in `reach`.
enum FuzzInput {
    static func bytes(_ start: UnsafeRawPointer?, _ count: Int) -> [UInt8] {
        guard let start, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// The input as a command-line word arrives: bytes that are not UTF-8 become U+FFFD
    /// (CommandLine.arguments uses String(cString:)), and a word can hold no NUL (argv is NUL-terminated).
    static func argument(_ start: UnsafeRawPointer?, _ count: Int) -> String {
        String(decoding: bytes(start, count).prefix { $0 != 0 }, as: UTF8.self)
    }
}

extension FuzzInput {
    /// Reads a structured input front to back; nil once it runs out.
    struct Reader {
        private let input: [UInt8]
        private var offset = 0
        init(_ input: [UInt8]) { self.input = input }

        mutating func byte() -> UInt8? { bytes(1)?.first }

        mutating func uint16() -> UInt16? {
            guard let pair = bytes(2) else { return nil }
            return UInt16(pair[pair.startIndex]) << 8 | UInt16(pair[pair.startIndex + 1])
        }

        mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
            guard count <= input.count - offset else { return nil }
            defer { offset += count }
            return input[offset..<offset + count]
        }

        /// A 2-byte big-endian length, then that many bytes (fewer if the input ends first).
        mutating func lengthPrefixed() -> [UInt8]? {
            guard let length = uint16() else { return nil }
            return Array(bytes(min(Int(length), input.count - offset)) ?? [])
        }
    }
}

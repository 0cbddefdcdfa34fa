/// The bytes libFuzzer hands to `LLVMFuzzerTestOneInput`, copied into an array: the
/// parsers under test take arrays and strings, as they do in `reach`.
enum FuzzInput {
    static func bytes(_ start: UnsafeRawPointer?, _ count: Int) -> [UInt8] {
        guard let start, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// The input as a command-line word arrives: bytes that are not UTF-8 become U+FFFD
    /// (REFERENCE §8), and a word can hold no NUL (argv is NUL-terminated).
    static func argument(_ start: UnsafeRawPointer?, _ count: Int) -> String {
        String(decoding: bytes(start, count).prefix { $0 != 0 }, as: UTF8.self)
    }
}

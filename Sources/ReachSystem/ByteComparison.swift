#if canImport(Glibc)
import Glibc
#endif

/// Byte-for-byte equality by memcmp: a reply's data is checked against the payload per
/// echo, where a Swift loop over the bytes costs ten instructions a byte.
public enum ByteComparison {
    @inline(__always)
    public static func equal(_ lhs: ArraySlice<UInt8>, _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard !rhs.isEmpty else { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in memcmp(left.baseAddress!, right.baseAddress!, right.count) == 0 }
        }
    }
}

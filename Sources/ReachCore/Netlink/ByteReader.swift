/// Bounds-checked reads of host-endian integers (netlink) from a byte slice; never traps.
struct ByteReader {
    let bytes: ArraySlice<UInt8>
    private(set) var offset: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.offset = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - offset }
    var relativeOffset: Int { offset - bytes.startIndex }

    mutating func skip(_ count: Int) throws {
        guard count >= 0, count <= remaining else { throw ParseError(offset: relativeOffset, "skip of \(count) past the end") }
        offset += count
    }

    mutating func readBytes(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw ParseError(offset: relativeOffset, "need \(count) bytes, have \(remaining)") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func readUInt8() throws -> UInt8 { try readBytes(1).first! }

    mutating func readHostUInt16() throws -> UInt16 {
        UInt16(truncatingIfNeeded: try readHostInteger(2))
    }

    mutating func readHostUInt32() throws -> UInt32 {
        UInt32(truncatingIfNeeded: try readHostInteger(4))
    }

    mutating func readHostInt32() throws -> Int32 {
        Int32(bitPattern: try readHostUInt32())
    }

    private mutating func readHostInteger(_ size: Int) throws -> UInt64 {
        let slice = try readBytes(size)
        return ByteOrder.decodeHost(slice)
    }
}

/// Host byte order (netlink integers) without pointer casts.
enum ByteOrder {
    static func decodeHost(_ slice: ArraySlice<UInt8>) -> UInt64 {
        var value: UInt64 = 0
        #if _endian(little)
        for byte in slice.reversed() { value = value << 8 | UInt64(byte) }
        #else
        for byte in slice { value = value << 8 | UInt64(byte) }
        #endif
        return value
    }

    static func encodeHost<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        let size = MemoryLayout<T>.size
        var bytes = [UInt8](repeating: 0, count: size)
        let wide = UInt64(truncatingIfNeeded: value)
        for index in 0..<size {
            #if _endian(little)
            bytes[index] = UInt8(truncatingIfNeeded: wide >> (8 * UInt64(index)))
            #else
            bytes[size - 1 - index] = UInt8(truncatingIfNeeded: wide >> (8 * UInt64(index)))
            #endif
        }
        return bytes
    }

    /// Appends `value` in host order (no array of its own: a request is built in place).
    static func appendHost<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        let size = MemoryLayout<T>.size
        let wide = UInt64(truncatingIfNeeded: value)
        for index in 0..<size {
            #if _endian(little)
            bytes.append(UInt8(truncatingIfNeeded: wide >> (8 * UInt64(index))))
            #else
            bytes.append(UInt8(truncatingIfNeeded: wide >> (8 * UInt64(size - 1 - index))))
            #endif
        }
    }

    static func decodeBig(_ slice: ArraySlice<UInt8>) -> UInt64 {
        slice.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

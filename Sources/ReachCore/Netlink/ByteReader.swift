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
        try require(count)
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Inlined: a call per read was 2% of a list's run (perf); the error is built out of line.
    @inline(__always)
    private func require(_ count: Int) throws {
        guard count >= 0, count <= remaining else { throw shortage(count) }
    }

    private func shortage(_ count: Int) -> ParseError {
        ParseError(offset: relativeOffset, "need \(count) bytes, have \(remaining)")
    }

    /// The next attribute (`struct rtattr` / `struct nlattr`): its type and where its value
    /// lies in `bytes`, the reader past its padding; nil when no header is left. Where, not a
    /// slice: a slice retains the datagram's storage, and a route answer holds ten attributes.
    mutating func readAttribute() throws -> (type: UInt16, value: Range<Int>)? {
        guard remaining >= 4 else { return nil }
        let start = relativeOffset
        let length = Int(try readHostUInt16())
        let type = try readHostUInt16()
        guard length >= 4, length - 4 <= remaining else {
            throw ParseError(offset: start, "attribute \(type) length \(length) does not fit")
        }
        let value = offset..<(offset + length - 4)
        offset += length - 4
        offset += min(Netlink.alignmentPadding(length), remaining)
        return (type, value)
    }

    mutating func readUInt8() throws -> UInt8 {
        try require(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readHostUInt16() throws -> UInt16 {
        UInt16(truncatingIfNeeded: try readHostInteger(2))
    }

    mutating func readHostUInt32() throws -> UInt32 {
        UInt32(truncatingIfNeeded: try readHostInteger(4))
    }

    mutating func readHostInt32() throws -> Int32 {
        Int32(bitPattern: try readHostUInt32())
    }

    /// Read in place, not through a slice of its own: a slice retains the datagram's storage,
    /// and a route answer's header and attributes are read thirty integers at a time (perf).
    @inline(__always)
    private mutating func readHostInteger(_ size: Int) throws -> UInt64 {
        try require(size)
        defer { offset += size }
        return ByteOrder.decodeHost(bytes, offset..<offset + size)
    }
}

/// Host byte order (netlink integers) without pointer casts.
enum ByteOrder {
    static func decodeHost(_ slice: ArraySlice<UInt8>) -> UInt64 { decodeHost(slice, slice.indices) }

    /// The integer at `range` of `bytes` (indices of the slice's base).
    @inline(__always)
    static func decodeHost(_ bytes: ArraySlice<UInt8>, _ range: Range<Int>) -> UInt64 {
        var value: UInt64 = 0
        #if _endian(little)
        var index = range.upperBound
        while index > range.lowerBound {
            index -= 1
            value = value << 8 | UInt64(bytes[index])
        }
        #else
        for index in range { value = value << 8 | UInt64(bytes[index]) }
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

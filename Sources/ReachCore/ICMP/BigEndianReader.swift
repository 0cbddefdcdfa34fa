/// Bounds-checked reads of network-order integers; never traps. Each field is read in
/// place, without cutting a slice for it (a slice retains the array: per field, per echo).
package struct BigEndianReader {
    private let bytes: ArraySlice<UInt8>
    private var offset: Int
    package init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    package var relativeOffset: Int { offset - bytes.startIndex }
    package var rest: ArraySlice<UInt8> { bytes[offset...] }

    package mutating func readUInt8() throws -> UInt8 {
        try need(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func readUInt16() throws -> UInt16 {
        try need(2)
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    package mutating func readUInt32() throws -> UInt32 {
        try need(4)
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    private func need(_ size: Int) throws {
        let remaining = bytes.endIndex - offset
        guard size <= remaining else { throw ParseError(offset: relativeOffset, "need \(size) bytes, have \(remaining)") }
    }
}

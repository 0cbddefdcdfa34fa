/// Reads marshalled D-Bus values from a whole message (the D-Bus Specification,
/// "Marshaling (Wire Format)"): alignment is counted from the message's first byte, in the
/// byte order its first byte names. Bounds-checked; a problem is a thrown `ParseError`
/// naming the offset, never a trap.
struct DBusReader {
    let bytes: [UInt8]
    let littleEndian: Bool
    private(set) var offset: Int
    /// Reads stop here (the end of the header fields, or of the body).
    var limit: Int

    /// The specification's limits: an array of at most 64 MiB, and values nested (arrays,
    /// structs, variants) at most 64 deep in all.
    static let maximumArrayLength = 64 << 20
    static let maximumDepth = 64

    func error(_ what: String) -> ParseError { ParseError(offset: offset, what) }

    /// Skips the padding before a value of `alignment`; padding must be zero.
    mutating func align(_ alignment: Int) throws(ParseError) {
        let padded = (offset + alignment - 1) / alignment * alignment
        guard padded <= limit else { throw error("padding past the end") }
        for index in offset..<padded where bytes[index] != 0 { throw ParseError(offset: index, "non-zero padding") }
        offset = padded
    }

    mutating func integer(_ size: Int) throws(ParseError) -> UInt64 {
        try align(size)
        guard size <= limit - offset else { throw error("need \(size) bytes, have \(limit - offset)") }
        var value: UInt64 = 0
        if littleEndian {
            for index in (offset..<offset + size).reversed() { value = value << 8 | UInt64(bytes[index]) }
        } else {
            for index in offset..<offset + size { value = value << 8 | UInt64(bytes[index]) }
        }
        offset += size
        return value
    }

    mutating func uint32() throws(ParseError) -> UInt32 { UInt32(truncatingIfNeeded: try integer(4)) }

    mutating func byte() throws(ParseError) -> UInt8 {
        guard offset < limit else { throw error("need 1 byte, have 0") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// `count` bytes of text, then a NUL; valid UTF-8 with no NUL inside.
    mutating func text(count: Int) throws(ParseError) -> String {
        guard count < limit - offset else { throw error("string of \(count) bytes runs past the end") }
        let range = offset..<offset + count
        guard bytes[offset + count] == 0 else { throw ParseError(offset: offset + count, "string not NUL-terminated") }
        guard !bytes[range].contains(0) else { throw error("NUL inside a string") }
        guard let text = String(validating: bytes[range], as: UTF8.self) else { throw error("string not valid UTF-8") }
        offset += count + 1
        return text
    }

    mutating func value(_ type: DBusType, depth: Int = 0) throws(ParseError) -> DBusValue {
        guard depth <= Self.maximumDepth else { throw error("values nested deeper than 64") }
        switch type {
        case .byte: return .byte(try byte())
        case .boolean:
            let start = offset
            switch try uint32() {
            case 0: return .boolean(false)
            case 1: return .boolean(true)
            case let other: throw ParseError(offset: start, "boolean \(other), neither 0 nor 1")
            }
        case .int16: return .int16(Int16(truncatingIfNeeded: try integer(2)))
        case .uint16: return .uint16(UInt16(truncatingIfNeeded: try integer(2)))
        case .int32: return .int32(Int32(truncatingIfNeeded: try integer(4)))
        case .uint32: return .uint32(try uint32())
        case .int64: return .int64(Int64(truncatingIfNeeded: try integer(8)))
        case .uint64: return .uint64(try integer(8))
        case .double: return .double(Double(bitPattern: try integer(8)))
        case .unixFD: return .unixFD(try uint32())
        case .string: return .string(try text(count: Int(try uint32())))
        case .objectPath:
            let start = offset
            let path = try text(count: Int(try uint32()))
            guard DBusObjectPath.isValid(path) else { throw ParseError(offset: start, "invalid object path") }
            return .objectPath(path)
        case .signature:
            let start = offset
            let text = try text(count: Int(try byte()))
            // Parsed only to be checked: the value keeps the signature as its text.
            do { _ = try DBusType.parse(text) } catch { throw ParseError(offset: start, error.description) }
            return .signature(text)
        case .variant: return try variant(depth: depth)
        case .array(let element): return try array(of: element, depth: depth)
        case .dictEntry(let keyType, let valueType):
            try align(8)
            let key = try value(keyType, depth: depth + 1)
            return .dictEntry(key, try value(valueType, depth: depth + 1))
        case .structure(let fields):
            try align(8)
            var values: [DBusValue] = []
            for field in fields { values.append(try value(field, depth: depth + 1)) }
            return .structure(values)
        }
    }

    private mutating func variant(depth: Int) throws(ParseError) -> DBusValue {
        let start = offset
        let text = try text(count: Int(try byte()))
        let types: [DBusType]
        do { types = try DBusType.parse(text) } catch { throw ParseError(offset: start, error.description) }
        guard types.count == 1, let inner = types.first else {
            throw ParseError(offset: start, "variant signature '\(text)' is not one type")
        }
        return .variant(try value(inner, depth: depth + 1))
    }

    /// An array's elements: its byte length, then elements up to that length, never past it.
    private mutating func array(of element: DBusType, depth: Int) throws(ParseError) -> DBusValue {
        let length = Int(try uint32())
        guard length <= Self.maximumArrayLength else { throw error("array of \(length) bytes, over 64 MiB") }
        try align(element.alignment)
        guard length <= limit - offset else { throw error("array of \(length) bytes runs past the end") }
        let end = offset + length
        let outer = limit
        limit = end
        defer { limit = outer }
        var elements: [DBusValue] = []
        // Every D-Bus type takes at least one byte, so this ends.
        while offset < end { elements.append(try value(element, depth: depth + 1)) }
        return .array(element, elements)
    }
}

/// Writes marshalled D-Bus values, little-endian, aligned from the message's first byte.
struct DBusWriter {
    private(set) var bytes: [UInt8] = []

    mutating func align(_ alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    mutating func integer(_ value: UInt64, size: Int) {
        align(size)
        for index in 0..<size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }

    mutating func text(_ text: String, lengthSize: Int) {
        let utf8 = Array(text.utf8)
        if lengthSize == 1 { bytes.append(UInt8(truncatingIfNeeded: utf8.count)) } else { integer(UInt64(utf8.count), size: 4) }
        bytes += utf8
        bytes.append(0)
    }

    /// Patches a 32-bit length written earlier at `offset`.
    mutating func patch(uint32 value: UInt32, at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index))) }
    }

    mutating func value(_ value: DBusValue) {
        switch value {
        case .byte(let byte): bytes.append(byte)
        case .boolean(let flag): integer(flag ? 1 : 0, size: 4)
        case .int16(let number): integer(UInt64(UInt16(bitPattern: number)), size: 2)
        case .uint16(let number): integer(UInt64(number), size: 2)
        case .int32(let number): integer(UInt64(UInt32(bitPattern: number)), size: 4)
        case .uint32(let number), .unixFD(let number): integer(UInt64(number), size: 4)
        case .int64(let number): integer(UInt64(bitPattern: number), size: 8)
        case .uint64(let number): integer(number, size: 8)
        case .double(let number): integer(number.bitPattern, size: 8)
        case .string(let string), .objectPath(let string): text(string, lengthSize: 4)
        case .signature(let string): text(string, lengthSize: 1)
        case .variant(let inner):
            text(inner.type.signature, lengthSize: 1)
            self.value(inner)
        case .array(let element, let elements):
            integer(0, size: 4)
            let lengthOffset = bytes.count - 4
            align(element.alignment)  // the padding before the first element is not counted
            let start = bytes.count
            for item in elements { self.value(item) }
            patch(uint32: UInt32(bytes.count - start), at: lengthOffset)
        case .dictEntry(let key, let item):
            align(8)
            self.value(key)
            self.value(item)
        case .structure(let fields):
            align(8)
            for field in fields { self.value(field) }
        }
    }
}

/// Object paths (the D-Bus Specification, "Valid Object Paths"): "/" or "/"-separated
/// non-empty elements of [A-Za-z0-9_], no trailing "/".
enum DBusObjectPath {
    static func isValid(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        var previousSlash = true
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if previousSlash { return false }
                previousSlash = true
                continue
            }
            previousSlash = false
            let allowed = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || byte == 0x5f
            if !allowed { return false }
        }
        return !previousSlash
    }
}

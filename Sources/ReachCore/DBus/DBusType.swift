/// One complete D-Bus type, as a signature spells it (the D-Bus Specification, "Type
/// System"): the basic types, arrays, dict entries, structs and variants.
indirect enum DBusType: Hashable, Sendable {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD, variant
    case array(DBusType)
    case dictEntry(key: DBusType, value: DBusType)
    case structure([DBusType])

    /// The specification's limits: a signature of at most 255 bytes, at most 32 nested
    /// arrays and 32 nested structs (dict entries count as structs).
    static let maximumSignatureLength = 255
    static let maximumNesting = 32

    /// The boundary a value of this type starts on, relative to the message's start.
    var alignment: Int {
        switch self {
        case .byte, .signature, .variant: 1
        case .int16, .uint16: 2
        case .boolean, .int32, .uint32, .string, .objectPath, .unixFD, .array: 4
        case .int64, .uint64, .double, .dictEntry, .structure: 8
        }
    }

    var isBasic: Bool {
        switch self {
        case .array, .dictEntry, .structure, .variant: false
        default: true
        }
    }

    /// The type's signature: "u", "a{sv}", "(ub)".
    var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .variant: "v"
        case .array(let element): "a" + element.signature
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    /// The complete types a signature lists, in order ("" is none). Throws for a signature
    /// the specification does not allow.
    static func parse(_ signature: String) throws(DBusSignatureError) -> [DBusType] {
        let bytes = Array(signature.utf8)
        guard bytes.count <= maximumSignatureLength else { throw DBusSignatureError(signature, "longer than 255 bytes") }
        var parser = SignatureParser(bytes: bytes)
        var types: [DBusType] = []
        while parser.index < bytes.count { types.append(try parser.completeType(arrays: 0, structs: 0, inArray: false)) }
        return types
    }
}

/// A signature the specification does not allow.
struct DBusSignatureError: Error, Equatable, CustomStringConvertible {
    var signature: String
    var what: String
    init(_ signature: String, _ what: String) {
        self.signature = signature
        self.what = what
    }
    var description: String { "bad D-Bus signature '\(signature)': \(what)" }
}

private struct SignatureParser {
    let bytes: [UInt8]
    var index = 0

    private var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func completeType(arrays: Int, structs: Int, inArray: Bool) throws(DBusSignatureError) -> DBusType {
        guard index < bytes.count else { throw DBusSignatureError(text, "ends inside a type") }
        let code = bytes[index]
        index += 1
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            guard arrays < DBusType.maximumNesting else { throw DBusSignatureError(text, "arrays nested deeper than 32") }
            return .array(try completeType(arrays: arrays + 1, structs: structs, inArray: true))
        case UInt8(ascii: "("):
            guard structs < DBusType.maximumNesting else { throw DBusSignatureError(text, "structs nested deeper than 32") }
            var fields: [DBusType] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
                fields.append(try completeType(arrays: arrays, structs: structs + 1, inArray: false))
            }
            guard index < bytes.count else { throw DBusSignatureError(text, "unclosed struct") }
            index += 1
            guard !fields.isEmpty else { throw DBusSignatureError(text, "empty struct") }
            return .structure(fields)
        case UInt8(ascii: "{"):
            // A dict entry only as an array's element, a basic key and one value.
            guard inArray else { throw DBusSignatureError(text, "dict entry outside an array") }
            guard structs < DBusType.maximumNesting else { throw DBusSignatureError(text, "structs nested deeper than 32") }
            let key = try completeType(arrays: arrays, structs: structs + 1, inArray: false)
            guard key.isBasic else { throw DBusSignatureError(text, "dict entry key not a basic type") }
            let value = try completeType(arrays: arrays, structs: structs + 1, inArray: false)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else {
                throw DBusSignatureError(text, "dict entry not closed after two types")
            }
            index += 1
            return .dictEntry(key: key, value: value)
        default:
            throw DBusSignatureError(text, "unknown type code '\(Character(Unicode.Scalar(code)))'")
        }
    }
}

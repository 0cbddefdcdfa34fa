/// A D-Bus value of any type the wire carries (the D-Bus Specification, "Type System").
indirect enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An index into the message's file descriptors (reach never sends or takes any).
    case unixFD(UInt32)
    /// The element type is kept: an empty array still has one.
    case array(DBusType, [DBusValue])
    case dictEntry(DBusValue, DBusValue)
    case structure([DBusValue])
    case variant(DBusValue)

    var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .unixFD: .unixFD
        case .array(let element, _): .array(element)
        case .dictEntry(let key, let value): .dictEntry(key: key.type, value: value.type)
        case .structure(let fields): .structure(fields.map(\.type))
        case .variant: .variant
        }
    }

    /// The value inside a variant (variants inside variants too); any other value itself.
    var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    var string: String? {
        switch unwrapped {
        case .string(let text), .objectPath(let text): text
        default: nil
        }
    }

    var uint32: UInt32? {
        if case .uint32(let value) = unwrapped { return value }
        return nil
    }

    var int32: Int32? {
        if case .int32(let value) = unwrapped { return value }
        return nil
    }

    var boolean: Bool? {
        if case .boolean(let value) = unwrapped { return value }
        return nil
    }

    /// An array's elements, or a struct's fields.
    var elements: [DBusValue]? {
        switch unwrapped {
        case .array(_, let elements): elements
        case .structure(let fields): fields
        default: nil
        }
    }

    /// A dictionary's entries (an array of dict entries), in wire order.
    var entries: [(key: DBusValue, value: DBusValue)]? {
        guard case .array(_, let elements) = unwrapped else { return nil }
        var entries: [(key: DBusValue, value: DBusValue)] = []
        for element in elements {
            guard case .dictEntry(let key, let value) = element else { return nil }
            entries.append((key, value))
        }
        return entries
    }

    /// The value a string-keyed dictionary (a{s…}, a{o…}) holds under `key`.
    subscript(key: String) -> DBusValue? {
        entries?.first { $0.key.string == key }?.value
    }
}

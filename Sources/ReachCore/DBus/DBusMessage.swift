/// One D-Bus message (the D-Bus Specification, "Message Format"): a 16-byte fixed header,
/// the header fields as `a(yv)`, padding to 8, and the body its SIGNATURE field describes.
struct DBusMessage: Hashable, Sendable {
    /// The message type byte; an unknown type survives parsing (and is ignored by reach).
    struct Kind: RawRepresentable, Hashable, Sendable {
        var rawValue: UInt8
        static let methodCall = Kind(rawValue: 1)
        static let methodReturn = Kind(rawValue: 2)
        static let error = Kind(rawValue: 3)
        static let signal = Kind(rawValue: 4)
    }

    /// The flags byte.
    struct Flags: OptionSet, Hashable, Sendable {
        var rawValue: UInt8
        static let noReplyExpected = Flags(rawValue: 0x1)
        /// The bus must not start the destination's service to deliver this call.
        static let noAutoStart = Flags(rawValue: 0x2)
    }

    /// The largest message the specification allows (128 MiB); anything longer is refused
    /// before it is buffered.
    static let maximumLength = 128 << 20

    var kind: Kind
    var flags: Flags
    var serial: UInt32
    var path: String?
    var interface: String?
    var member: String?
    var errorName: String?
    var replySerial: UInt32?
    var destination: String?
    var sender: String?
    var body: [DBusValue]

    init(kind: Kind, flags: Flags = [], serial: UInt32, path: String? = nil, interface: String? = nil, member: String? = nil,
                errorName: String? = nil, replySerial: UInt32? = nil, destination: String? = nil, sender: String? = nil,
                body: [DBusValue] = []) {
        self.kind = kind
        self.flags = flags
        self.serial = serial
        self.path = path
        self.interface = interface
        self.member = member
        self.errorName = errorName
        self.replySerial = replySerial
        self.destination = destination
        self.sender = sender
        self.body = body
    }

    /// A method call that never starts a service (NO_AUTO_START on every call reach makes).
    static func call(destination: String, path: String, interface: String, member: String, body: [DBusValue] = [],
                            flags: Flags = []) -> DBusMessage {
        DBusMessage(kind: .methodCall, flags: flags.union(.noAutoStart), serial: 0, path: path, interface: interface,
                    member: member, destination: destination, body: body)
    }

    /// The body's signature: its values' types, in order.
    var signature: String { body.map(\.type.signature).joined() }

    // Header field codes (the specification's "Header Fields" table).
    enum Field: UInt8 {
        case path = 1
        case interface = 2
        case member = 3
        case errorName = 4
        case replySerial = 5
        case destination = 6
        case sender = 7
        case signature = 8
        case unixFDs = 9
    }

    /// Little-endian wire bytes.
    func encoded() -> [UInt8] {
        var fields: [DBusValue] = []
        func add(_ field: Field, _ value: DBusValue?) {
            if let value { fields.append(.structure([.byte(field.rawValue), .variant(value)])) }
        }
        add(.path, path.map(DBusValue.objectPath))
        add(.interface, interface.map(DBusValue.string))
        add(.member, member.map(DBusValue.string))
        add(.errorName, errorName.map(DBusValue.string))
        add(.replySerial, replySerial.map(DBusValue.uint32))
        add(.destination, destination.map(DBusValue.string))
        add(.sender, sender.map(DBusValue.string))
        if !body.isEmpty { add(.signature, .signature(signature)) }

        var writer = DBusWriter()
        writer.value(.byte(UInt8(ascii: "l")))
        writer.value(.byte(kind.rawValue))
        writer.value(.byte(flags.rawValue))
        writer.value(.byte(1))  // protocol version
        writer.value(.uint32(0))  // body length, patched below
        writer.value(.uint32(serial))
        writer.value(.array(.structure([.byte, .variant]), fields))
        writer.align(8)
        let bodyStart = writer.bytes.count
        for value in body { writer.value(value) }
        writer.patch(uint32: UInt32(writer.bytes.count - bodyStart), at: 4)
        return writer.bytes
    }

    /// The whole message's length once its first 16 bytes are in: nil when fewer are.
    /// Throws for a header that cannot start a message (byte order, version, lengths).
    static func frameLength(_ bytes: ArraySlice<UInt8>) throws(ParseError) -> Int? {
        guard bytes.count >= 16 else { return nil }
        let start = bytes.startIndex
        let little: Bool
        switch bytes[start] {
        case UInt8(ascii: "l"): little = true
        case UInt8(ascii: "B"): little = false
        default: throw ParseError(offset: 0, "byte order '\(bytes[start])', neither 'l' nor 'B'")
        }
        guard bytes[start + 3] == 1 else { throw ParseError(offset: 3, "protocol version \(bytes[start + 3]), not 1") }
        func word(_ at: Int) -> Int {
            var value = 0
            for index in 0..<4 {
                let byte = Int(bytes[start + at + index])
                value |= little ? byte << (8 * index) : byte << (8 * (3 - index))
            }
            return value
        }
        let bodyLength = word(4)
        let fieldsLength = word(12)
        guard bodyLength <= maximumLength, fieldsLength <= maximumLength else { throw ParseError(offset: 4, "message longer than 128 MiB") }
        let total = 16 + (fieldsLength + 7) / 8 * 8 + bodyLength
        guard total <= maximumLength else { throw ParseError(offset: 4, "message of \(total) bytes, over 128 MiB") }
        return total
    }

    /// Parses one whole message (exactly `frameLength` bytes).
    static func parse(_ bytes: [UInt8]) throws(ParseError) -> DBusMessage {
        guard let length = try frameLength(bytes[...]) else { throw ParseError(offset: bytes.count, "shorter than the 16-byte header") }
        guard length == bytes.count else { throw ParseError(offset: bytes.count, "length \(bytes.count), the header says \(length)") }
        let little = bytes[0] == UInt8(ascii: "l")
        var reader = DBusReader(bytes: bytes, littleEndian: little, offset: 4, limit: 16)
        let bodyLength = Int(try reader.uint32())
        let serial = try reader.uint32()
        guard serial != 0 else { throw ParseError(offset: 8, "serial 0") }
        reader = DBusReader(bytes: bytes, littleEndian: little, offset: 12, limit: length - bodyLength)
        guard case .array(_, let fields) = try reader.value(.array(.structure([.byte, .variant]))) else {
            throw ParseError(offset: 12, "header fields are not an array")
        }
        try reader.align(8)

        var message = DBusMessage(kind: Kind(rawValue: bytes[1]), flags: Flags(rawValue: bytes[2]), serial: serial)
        var signature = ""
        for field in fields {
            guard case .structure(let parts) = field, parts.count == 2, case .byte(let code) = parts[0],
                  case .variant(let value) = parts[1] else { continue }
            func expect(_ type: DBusType) throws(ParseError) -> DBusValue {
                guard value.type == type else { throw ParseError(offset: 12, "header field \(code) of type '\(value.type.signature)'") }
                return value
            }
            switch Field(rawValue: code) {
            case .path?: message.path = try expect(.objectPath).string
            case .interface?: message.interface = try expect(.string).string
            case .member?: message.member = try expect(.string).string
            case .errorName?: message.errorName = try expect(.string).string
            case .replySerial?: message.replySerial = try expect(.uint32).uint32
            case .destination?: message.destination = try expect(.string).string
            case .sender?: message.sender = try expect(.string).string
            case .signature?:
                guard case .signature(let text) = try expect(.signature) else { break }
                signature = text
            case .unixFDs?: _ = try expect(.uint32)  // checked and skipped: reach passes no descriptors
            case nil: break  // unknown fields are ignored, as the specification asks
            }
        }
        switch message.kind {
        case .methodCall where message.path == nil || message.member == nil,
             .signal where message.path == nil || message.interface == nil || message.member == nil:
            throw ParseError(offset: 12, "a required header field is missing")
        case .methodReturn where message.replySerial == nil, .error where message.replySerial == nil || message.errorName == nil:
            throw ParseError(offset: 12, "a required header field is missing")
        default: break
        }

        let types: [DBusType]
        do { types = try DBusType.parse(signature) } catch { throw ParseError(offset: 12, error.description) }
        reader.limit = length
        for type in types { message.body.append(try reader.value(type)) }
        guard reader.offset == length else { throw ParseError(offset: reader.offset, "\(length - reader.offset) bytes after the body") }
        return message
    }
}

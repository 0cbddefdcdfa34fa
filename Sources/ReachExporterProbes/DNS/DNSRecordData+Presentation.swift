import ReachCore

/// The types whose data the prober needs only as text, written at decoding as miekg/dns's
/// String() writes them (`types.go`): NAPTR (RFC 3403), DS, CDS and DLV (RFC 4034, 5.3),
/// DNSKEY, CDNSKEY and KEY (RFC 4034, 2.2), SSHFP (RFC 4255), TLSA (RFC 6698), URI (RFC 7553)
/// NSEC (RFC 4034, 4.2) and CAA (RFC 8659).
extension DNSRecordData {
    static let presentedTypes: Set<UInt16> = [35, 43, 59, 32769, 48, 60, 25, 44, 52, 256, 47, 257]

    static func presentation(type: UInt16, _ message: ArraySlice<UInt8>, at start: Int) throws -> String {
        var fields = FieldReader(message: message, position: start)
        let text: String
        switch type {
        case 35:
            let (order, preference) = (try fields.uint16(), try fields.uint16())
            let strings = try (0..<3).map { _ in try fields.characterString() }
            text = "\(order) \(preference) " + strings.map { "\"\($0)\" " }.joined() + (try fields.name().text)
        case 43, 59, 32769:
            let (tag, algorithm, digestType) = (try fields.uint16(), try fields.uint8(), try fields.uint8())
            text = "\(tag) \(algorithm) \(digestType) \(hex(fields.rest(), uppercase: true))"
        case 48, 60, 25:
            let (flags, proto, algorithm) = (try fields.uint16(), try fields.uint8(), try fields.uint8())
            text = "\(flags) \(proto) \(algorithm) \(Base64.encoded(fields.rest()))"
        case 44:
            let (algorithm, kind) = (try fields.uint8(), try fields.uint8())
            text = "\(algorithm) \(kind) \(hex(fields.rest(), uppercase: true))"
        case 52:
            let (usage, selector, matching) = (try fields.uint8(), try fields.uint8(), try fields.uint8())
            text = "\(usage) \(selector) \(matching) \(hex(fields.rest(), uppercase: false))"
        case 256:
            let (priority, weight) = (try fields.uint16(), try fields.uint16())
            text = "\(priority) \(weight) \(DNSText.quoted(fields.rest()))"
        case 257:
            let (flags, tag) = (try fields.uint8(), try fields.characterString())
            text = "\(flags) \(tag) \(DNSText.quoted(fields.rest()))"
        default:
            let next = try fields.name()
            let offset = fields.position
            text = ([next.text] + (try typeBitmap(fields.rest(), at: offset)).map(DNSParameters.typeName)).joined(separator: " ")
        }
        return text
    }

    /// Reads fields in order, never past the record's end.
    private struct FieldReader {
        let message: ArraySlice<UInt8>
        var position: Int

        mutating func uint8() throws -> UInt8 {
            guard position < message.endIndex else { throw ParseError(offset: position, "a field runs past its record") }
            defer { position += 1 }
            return message[position]
        }

        mutating func uint16() throws -> UInt16 { UInt16(try uint8()) << 8 | UInt16(try uint8()) }

        /// A character string as miekg/dns's unpackString leaves it: `"` and `\` escaped,
        /// other bytes outside space...tilde as `\DDD`.
        mutating func characterString() throws -> String {
            let length = Int(try uint8())
            guard position + length <= message.endIndex else { throw ParseError(offset: position, "a string runs past its record") }
            defer { position += length }
            return String(DNSText.quoted(Array(message[position..<position + length])).dropFirst().dropLast())
        }

        mutating func name() throws -> DNSName {
            let (name, next) = try DNSName.decode(message, at: position, limit: message.endIndex)
            position = next
            return name
        }

        mutating func rest() -> [UInt8] {
            defer { position = message.endIndex }
            return Array(message[position...])
        }
    }

    static func hex(_ bytes: [UInt8], uppercase: Bool) -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out: [UInt8] = []
        for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// The types of an NSEC type bitmap (RFC 4034, 4.1.2): windows in increasing order, each
    /// of 1 to 32 bytes, the most significant bit of the first byte type 0 of the window.
    static func typeBitmap(_ bytes: [UInt8], at offset: Int) throws -> [UInt16] {
        var types: [UInt16] = []
        var position = 0
        var lastWindow = -1
        while position < bytes.count {
            guard position + 2 <= bytes.count else { throw ParseError(offset: offset + position, "a type bitmap window cut short") }
            let (window, length) = (Int(bytes[position]), Int(bytes[position + 1]))
            guard window > lastWindow, (1...32).contains(length), position + 2 + length <= bytes.count else {
                throw ParseError(offset: offset + position, "a bad type bitmap window")
            }
            for (index, byte) in bytes[(position + 2)..<(position + 2 + length)].enumerated() {
                for bit in 0..<8 where byte & (0x80 >> bit) != 0 { types.append(UInt16(window * 256 + index * 8 + bit)) }
            }
            lastWindow = window
            position += 2 + length
        }
        return types
    }
}

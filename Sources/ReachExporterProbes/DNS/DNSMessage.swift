import ReachCore

/// A DNS message (RFC 1035, 4.1): a query to send, or a response read as miekg/dns reads
/// it for blackbox_exporter (`msg.go` Unpack), so that both count the same records.
public struct DNSMessage: Sendable, Equatable {
    public var id: UInt16
    /// The header's second 16 bits: QR, OPCODE, AA, TC, RD, RA, Z, RCODE (RFC 1035, 4.1.1).
    public var flags: UInt16
    /// RCODE, with EDNS's upper 8 bits when an OPT record carries them (RFC 6891, 6.1.3).
    public var rcode: Int
    public var questions: [Question]
    public var answers: [DNSRecord] = []
    public var authorities: [DNSRecord] = []
    public var additionals: [DNSRecord] = []

    public struct Question: Sendable, Equatable {
        public var name: DNSName
        public var type: UInt16
        public var questionClass: UInt16
        public init(name: DNSName, type: UInt16, questionClass: UInt16) {
            (self.name, self.type, self.questionClass) = (name, type, questionClass)
        }
    }

    static let headerLength = 12
    static let recursionDesiredBit: UInt16 = 0x0100
    static let truncatedBit: UInt16 = 0x0200
    static let responseBit: UInt16 = 0x8000

    public var isResponse: Bool { flags & Self.responseBit != 0 }
    public var isTruncated: Bool { flags & Self.truncatedBit != 0 }
    public var recursionDesired: Bool { flags & Self.recursionDesiredBit != 0 }

    /// A standard query (OPCODE 0) for one question, without EDNS (blackbox_exporter's message
    /// has no OPT record, so the server answers within 512 bytes over UDP: RFC 1035, 4.2.1).
    public static func query(id: UInt16, _ question: Question, recursionDesired: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerLength + question.name.wireLength + 4)
        let flags = recursionDesired ? recursionDesiredBit : 0
        for field in [id, flags, 1, 0, 0, 0] { bytes += [UInt8(field >> 8), UInt8(field & 0xFF)] }
        question.name.encode(into: &bytes)
        for field in [question.type, question.questionClass] { bytes += [UInt8(field >> 8), UInt8(field & 0xFF)] }
        return bytes
    }

    /// A response as miekg/dns unpacks it: the header, then as many questions and records as
    /// the counts say, stopping early without an error where the message ends between two
    /// entries (a server's header-only answer, a count that lies), and failing on an entry cut
    /// in its middle, a name of a reserved label type, too long or looping, and record data
    /// that does not fill its length.
    public static func decode(_ bytes: [UInt8]) throws(ParseError) -> DNSMessage {
        do {
            return try decodeThrowing(bytes[...])
        } catch let error as ParseError {
            throw error
        } catch {
            throw ParseError(offset: 0, "\(error)")
        }
    }

    private static func decodeThrowing(_ message: ArraySlice<UInt8>) throws -> DNSMessage {
        guard message.count >= headerLength else { throw ParseError(offset: 0, "a header of \(message.count) bytes, not 12") }
        var header = BigEndianReader(message)
        let id = try header.readUInt16()
        let flags = try header.readUInt16()
        let counts = [try header.readUInt16(), try header.readUInt16(), try header.readUInt16(), try header.readUInt16()]
        var result = DNSMessage(id: id, flags: flags, rcode: Int(flags & 0xF), questions: [])
        var offset = message.startIndex + headerLength
        for _ in 0..<counts[0] where offset < message.endIndex {
            let (name, afterName) = try DNSName.decode(message, at: offset, limit: message.endIndex)
            var fields = BigEndianReader(message[afterName...])
            result.questions.append(Question(name: name, type: try fields.readUInt16(), questionClass: try fields.readUInt16()))
            offset = afterName + 4
        }
        var sections: [[DNSRecord]] = [[], [], []]
        for section in 0..<3 {
            for _ in 0..<counts[section + 1] where offset < message.endIndex {
                let (record, next) = try DNSRecord.decode(message, at: offset)
                sections[section].append(record)
                offset = next
            }
        }
        (result.answers, result.authorities, result.additionals) = (sections[0], sections[1], sections[2])
        // miekg/dns's IsEdns0 takes the last OPT record; its ExtendedRcode is the upper 8 bits, shifted by 4.
        for record in result.additionals.reversed() {
            if case .opt(let opt) = record.data {
                result.rcode |= Int(opt.extendedRcode) << 4
                break
            }
        }
        return result
    }

    /// A message over TCP: its length in two bytes first (RFC 1035, 4.2.2; RFC 7766, 8).
    public static func framed(_ message: [UInt8]) -> [UInt8] {
        [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
    }
}

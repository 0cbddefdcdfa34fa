import ReachCore

/// A resource record of a response (RFC 1035, 3.2.1; 4.1.3), its data decoded for the types
/// whose text blackbox_exporter users match with regular expressions, kept as bytes for the
/// others.
public struct DNSRecord: Sendable, Equatable {
    public var name: DNSName
    public var type: UInt16
    public var recordClass: UInt16
    public var ttl: UInt32
    public var data: DNSRecordData

    public enum Kind {
        static let a: UInt16 = 1, ns: UInt16 = 2, cname: UInt16 = 5, soa: UInt16 = 6, ptr: UInt16 = 12, hinfo: UInt16 = 13
        static let minfo: UInt16 = 14, mx: UInt16 = 15, txt: UInt16 = 16, rp: UInt16 = 17, afsdb: UInt16 = 18, rt: UInt16 = 21
        static let aaaa: UInt16 = 28, srv: UInt16 = 33, kx: UInt16 = 36, dname: UInt16 = 39, opt: UInt16 = 41, spf: UInt16 = 99
        static let avc: UInt16 = 258
        /// MD, MF, MB, MG, MR (RFC 1035, 3.3): one name, as NS.
        static let singleName: Set<UInt16> = [ns, 3, 4, cname, 7, 8, 9, ptr, dname]
    }

    /// The record at `offset`, and the offset after it. The data must fill its RDLENGTH
    /// exactly for the types decoded here (miekg/dns's "bad rdlength"); names inside it may
    /// point only before its end.
    static func decode(_ message: ArraySlice<UInt8>, at offset: Int) throws -> (DNSRecord, Int) {
        let (name, afterName) = try DNSName.decode(message, at: offset, limit: message.endIndex)
        var header = BigEndianReader(message[afterName...])
        let type = try header.readUInt16()
        let recordClass = try header.readUInt16()
        let ttl = try header.readUInt32()
        let length = Int(try header.readUInt16())
        let start = afterName + 10
        guard start + length <= message.endIndex else {
            throw ParseError(offset: start - message.startIndex, "RDLENGTH \(length) runs past the end")
        }
        var record = DNSRecord(name: name, type: type, recordClass: recordClass, ttl: ttl, data: .empty)
        if type == Kind.opt {
            record.data = .opt(.init(
                udpSize: recordClass, extendedRcode: UInt8(ttl >> 24), version: UInt8(truncatingIfNeeded: ttl >> 16),
                dnssecOK: ttl & 0x8000 != 0))
        } else if length > 0 {
            record.data = try DNSRecordData.decode(type: type, message[message.startIndex..<start + length], at: start)
        }
        return (record, start + length)
    }

    /// miekg/dns's `RR.String()`, which blackbox_exporter's validate_*_rrs regular expressions
    /// match: `name TAB ttl TAB class TAB type TAB data`, the data as each type's String()
    /// writes it. A type miekg/dns has no struct for gets RFC 3597's `CLASSn TYPEn \# len hex`.
    public var text: String {
        if case .opt(let opt) = data { return opt.text }
        let known = type != 0 && DNSParameters.types.contains { $0.0 == type }
        let header = known
            ? "\(name.text)\t\(ttl)\t\(DNSParameters.className(recordClass))\t\(DNSParameters.typeName(type))\t"
            : "\(name.text)\t\(ttl)\tCLASS\(recordClass)\tTYPE\(type)\t"
        return header + data.text
    }
}

public enum DNSRecordData: Sendable, Equatable {
    /// No data (RDLENGTH 0): miekg/dns prints the header alone.
    case empty
    case address([UInt8])
    case name(DNSName)
    /// MINFO and RP: two names.
    case names(DNSName, DNSName)
    /// MX, AFSDB, RT, KX: a 16-bit number and a name.
    case preference(UInt16, DNSName)
    case soa(SOA)
    /// TXT, SPF, AVC, HINFO: character strings.
    case strings([[UInt8]])
    case service(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
    case opt(OPT)
    /// Types whose fields only the text needs (`DNSRecordData+Presentation.swift`).
    case presentation(String)
    case opaque([UInt8])

    public struct SOA: Sendable, Equatable {
        public var primary: DNSName
        public var mailbox: DNSName
        public var serial: UInt32
        public var refresh: UInt32
        public var retry: UInt32
        public var expire: UInt32
        public var minimum: UInt32
    }

    /// EDNS's pseudo-record (RFC 6891, 6.1.2-6.1.3): the requestor's UDP payload size in the
    /// class, the extended RCODE, version and DO bit in the TTL. Options are kept unread.
    public struct OPT: Sendable, Equatable {
        public var udpSize: UInt16
        public var extendedRcode: UInt8
        public var version: UInt8
        public var dnssecOK: Bool

        /// miekg/dns's `OPT.String()` without its options' lines.
        var text: String {
            "\n;; OPT PSEUDOSECTION:\n; EDNS: version \(version); flags: \(dnssecOK ? "do; " : "; ")udp: \(udpSize)"
        }
    }

    static func decode(type: UInt16, _ message: ArraySlice<UInt8>, at start: Int) throws -> DNSRecordData {
        let kind = DNSRecord.Kind.self
        var reader = BigEndianReader(message[start...])
        let data: DNSRecordData
        var end = start
        func name() throws -> DNSName {
            let (name, after) = try DNSName.decode(message, at: end, limit: message.endIndex)
            end = after
            reader = BigEndianReader(message[after...])
            return name
        }
        func uint16() throws -> UInt16 {
            defer { end += 2 }
            return try reader.readUInt16()
        }
        func uint32() throws -> UInt32 {
            defer { end += 4 }
            return try reader.readUInt32()
        }
        switch type {
        case kind.a, kind.aaaa:
            let size = type == kind.a ? 4 : 16
            guard message.endIndex - start == size else {
                throw ParseError(offset: start, "an address of \(message.endIndex - start) bytes")
            }
            data = .address(Array(message[start...]))
            end = message.endIndex
        case _ where kind.singleName.contains(type):
            data = .name(try name())
        case 14, kind.rp:
            data = .names(try name(), try name())
        case kind.mx, kind.afsdb, kind.rt, kind.kx:
            let preference = try uint16()
            data = .preference(preference, try name())
        case kind.soa:
            let (primary, mailbox) = (try name(), try name())
            data = .soa(SOA(
                primary: primary, mailbox: mailbox, serial: try uint32(), refresh: try uint32(), retry: try uint32(),
                expire: try uint32(), minimum: try uint32()))
        case kind.txt, kind.spf, kind.avc, kind.hinfo:
            data = .strings(try strings(message, from: start))
            end = message.endIndex
        case kind.srv:
            let (priority, weight, port) = (try uint16(), try uint16(), try uint16())
            data = .service(priority: priority, weight: weight, port: port, target: try name())
        case _ where presentedTypes.contains(type):
            data = .presentation(try presentation(type: type, message, at: start))
            end = message.endIndex
        default:
            data = .opaque(Array(message[start...]))
            end = message.endIndex
        }
        guard end == message.endIndex else { throw ParseError(offset: end, "bad RDLENGTH: \(message.endIndex - end) bytes left") }
        return data
    }

    private static func strings(_ message: ArraySlice<UInt8>, from start: Int) throws -> [[UInt8]] {
        var strings: [[UInt8]] = []
        var position = start
        while position < message.endIndex {
            let length = Int(message[position])
            guard position + 1 + length <= message.endIndex else { throw ParseError(offset: position, "a string runs past its record") }
            strings.append(Array(message[position + 1..<position + 1 + length]))
            position += 1 + length
        }
        return strings
    }

    /// The data's part of miekg/dns's text for its type.
    var text: String {
        switch self {
        case .empty: return ""
        case .address(let bytes): return Self.addressText(bytes)
        case .name(let name): return name.text
        case .names(let first, let second): return "\(first.text) \(second.text)"
        case .preference(let number, let name): return "\(number) \(name.text)"
        case .soa(let soa):
            return "\(soa.primary.text) \(soa.mailbox.text) \(soa.serial) \(soa.refresh) \(soa.retry) \(soa.expire) \(soa.minimum)"
        case .strings(let strings): return strings.map(DNSText.quoted).joined(separator: " ")
        case .service(let priority, let weight, let port, let target): return "\(priority) \(weight) \(port) \(target.text)"
        case .opt(let opt): return opt.text
        case .presentation(let text): return text
        case .opaque(let bytes): return "\\# \(bytes.count) " + Self.hex(bytes, uppercase: false)
        }
    }

    /// Go's `net.IP.String()`: dotted IPv4, an IPv4-mapped IPv6 address as IPv4 too, else
    /// RFC 5952 (lowercase hex, the first longest run of two or more zero groups as "::").
    static func addressText(_ bytes: [UInt8]) -> String {
        let isMapped = bytes.count == 16 && bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        if bytes.count == 4 || isMapped { return bytes.suffix(4).map(String.init).joined(separator: ".") }
        let groups = (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        var (bestStart, bestLength, runStart) = (-1, 0, -1)
        for index in 0...8 {
            if index < 8, groups[index] == 0 {
                if runStart < 0 { runStart = index }
            } else if runStart >= 0 {
                if index - runStart > bestLength { (bestStart, bestLength) = (runStart, index - runStart) }
                runStart = -1
            }
        }
        if bestLength < 2 { bestStart = -1 }
        var text = ""
        var index = 0
        while index < 8 {
            if index == bestStart {
                text += "::"
                index += bestLength
                continue
            }
            if !text.isEmpty && !text.hasSuffix(":") { text += ":" }
            text += String(groups[index], radix: 16)
            index += 1
        }
        return text
    }
}

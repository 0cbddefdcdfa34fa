/// What blackbox_exporter's probe_ssl_last_chain_info labels say of a leaf certificate
/// (`prober/tls.go`): its SHA-256 fingerprint, subject and issuer as Go's
/// `pkix.Name.String()` writes them (`crypto/x509/pkix/pkix.go`), and its DNS names. Read
/// from the DER (RFC 5280, 4.1) with bounds-checked reads: a certificate it cannot read
/// gives empty labels, never a trap.
struct CertificateSummary: Equatable {
    var fingerprint = ""
    var subject = ""
    var issuer = ""
    var dnsNames: [String] = []

    init(der: [UInt8]) {
        fingerprint = SHA256.digest(der).map(Self.hex).joined()
        var certificate = DERReader(der[...])
        guard let outer = certificate.next(), outer.tag == 0x30 else { return }
        var body = DERReader(outer.content)
        guard let tbs = body.next(), tbs.tag == 0x30 else { return }
        var fields = DERReader(tbs.content)
        var element = fields.next()
        if element?.tag == 0xA0 { element = fields.next() } // version [0] EXPLICIT
        guard element?.tag == 0x02, fields.next()?.tag == 0x30, // serialNumber, signature
            let issuerName = fields.next(), fields.next()?.tag == 0x30, let subjectName = fields.next() // issuer, validity, subject
        else { return }
        issuer = Self.name(issuerName.content)
        subject = Self.name(subjectName.content)
        while let field = fields.next() {
            if field.tag == 0xA3 { dnsNames = Self.dnsNames(inExtensions: field.content) } // extensions [3] EXPLICIT
        }
    }

    /// The attribute types Go names (`attributeTypeNames`), by the last arc of 2.5.4.X.
    private static let typeNames: [UInt8: String] = [
        6: "C", 8: "ST", 7: "L", 9: "STREET", 17: "POSTALCODE", 10: "O", 11: "OU", 3: "CN", 5: "SERIALNUMBER",
    ]

    /// Go's Name.String(): attributes it does not parse into fields first (as written, each
    /// its own RDN), then C, ST, L, STREET, POSTALCODE, O, OU (each type's values one RDN),
    /// CN and SERIALNUMBER (the last value of each); printed in reverse, RDNs joined by ","
    /// and the values of one by "+".
    static func name(_ content: ArraySlice<UInt8>) -> String {
        var other: [[String]] = []
        var byType: [UInt8: [String]] = [:]
        var rdns = DERReader(content)
        while let rdn = rdns.next() {
            var attributes = DERReader(rdn.content)
            while let attribute = attributes.next() {
                var parts = DERReader(attribute.content)
                guard let oid = parts.next(), oid.tag == 0x06, let value = parts.next() else { continue }
                let arcs = Array(oid.content)
                if arcs.count == 3, arcs[0] == 0x55, arcs[1] == 0x04, let known = typeNames[arcs[2]] {
                    byType[arcs[2], default: []].append("\(known)=" + escape(String(decoding: value.content, as: UTF8.self)))
                } else {
                    other.append([dotted(oid.content) + "=#" + reencoded(value).map(hex).joined()])
                }
            }
        }
        var sequence = other
        for type: UInt8 in [6, 8, 7, 9, 17, 10, 11] { if let values = byType[type] { sequence.append(values) } }
        for type: UInt8 in [3, 5] { if let last = byType[type]?.last { sequence.append([last]) } }
        return sequence.reversed().map { $0.joined(separator: "+") }.joined(separator: ",")
    }

    /// Go's escaping of a value: `,+"\<>;` always, a space first or last, a `#` first.
    private static func escape(_ value: String) -> String {
        let characters = Array(value)
        var escaped = ""
        for (index, character) in characters.enumerated() {
            let special =
                ",+\"\\<>;".contains(character) || (character == " " && (index == 0 || index == characters.count - 1))
                || (character == "#" && index == 0)
            if special { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// How Go marshals an unnamed attribute's string again: PrintableString when every
    /// character allows it, else UTF8String (`encoding/asn1`'s makeField for a string).
    private static func reencoded(_ value: DERReader.Element) -> [UInt8] {
        let stringTags: Set<UInt8> = [0x0C, 0x13, 0x14, 0x16, 0x1A, 0x1E]
        guard stringTags.contains(value.tag), value.content.count < 128 else { return Array(value.whole) }
        let printable = value.content.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || " '()+,-./:=?".utf8.contains(byte)
        }
        return [printable ? 0x13 : 0x0C, UInt8(value.content.count)] + value.content
    }

    private static func dotted(_ content: ArraySlice<UInt8>) -> String {
        guard let first = content.first else { return "" }
        var arcs = [Int(first) / 40, Int(first) % 40]
        var value = 0
        for byte in content.dropFirst() {
            value = value << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 {
                arcs.append(value)
                value = 0
            }
            if value > 1 << 40 { break }
        }
        return arcs.map(String.init).joined(separator: ".")
    }

    /// The dNSName entries of subjectAltName (2.5.29.17), in order.
    private static func dnsNames(inExtensions content: ArraySlice<UInt8>) -> [String] {
        var wrapper = DERReader(content)
        guard let list = wrapper.next(), list.tag == 0x30 else { return [] }
        var extensions = DERReader(list.content)
        while let item = extensions.next() {
            var parts = DERReader(item.content)
            guard let oid = parts.next(), oid.tag == 0x06, Array(oid.content) == [0x55, 0x1D, 0x11] else { continue }
            var value = parts.next()
            if value?.tag == 0x01 { value = parts.next() } // critical
            guard let octets = value, octets.tag == 0x04 else { return [] }
            var inner = DERReader(octets.content)
            guard let names = inner.next(), names.tag == 0x30 else { return [] }
            var general = DERReader(names.content)
            var found: [String] = []
            while let name = general.next() {
                if name.tag == 0x82 { found.append(String(decoding: name.content, as: UTF8.self)) }
            }
            return found
        }
        return []
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}

/// DER's tag-length-value elements one after another (X.690, 8.1), single-byte tags only
/// (all that a certificate's fields use); nil at the end or at the first malformed one.
struct DERReader {
    struct Element {
        var tag: UInt8
        var content: ArraySlice<UInt8>
        var whole: ArraySlice<UInt8>
    }

    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    mutating func next() -> Element? {
        guard bytes.count >= 2 else { return nil }
        let start = bytes.startIndex
        let tag = bytes[start]
        var index = start + 1
        let first = bytes[index]
        index += 1
        var length = Int(first)
        if first & 0x80 != 0 {
            let count = Int(first & 0x7F)
            guard (1...4).contains(count), bytes.endIndex - index >= count else { return nil }
            length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard length <= bytes.endIndex - index else { return nil }
        let element = Element(tag: tag, content: bytes[index..<index + length], whole: bytes[start..<index + length])
        bytes = bytes[(index + length)...]
        return element
    }
}

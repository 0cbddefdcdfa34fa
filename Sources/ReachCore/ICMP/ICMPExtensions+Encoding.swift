extension ICMPExtensions {
    /// The structure as a router sends it (RFC 4884 section 7): the header, its checksum
    /// over the whole structure filled in, then each object. A parsed structure encodes to
    /// one that parses back to it (the fuzz target holds this); tests build replies with it.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = [Self.version << 4, 0, 0, 0]
        for object in objects { object.encode(into: &bytes) }
        let sum = ICMPCodec.checksum(bytes[...])
        bytes[2] = UInt8(sum >> 8)
        bytes[3] = UInt8(sum & 0xff)
        return bytes
    }
}

extension ICMPExtensionObject {
    /// The object header (length, class-num, c-type), then its data; `.other`'s data is
    /// written as it is, and parses back only in whole words.
    func encode(into bytes: inout [UInt8]) {
        let data: [UInt8]
        switch self {
        case .mplsLabelStack(let entries): data = entries.flatMap { Self.bytes(of: $0.word) }
        case .interfaceInformation(let information): data = information.encodedData
        case .other(_, _, let raw): data = raw
        }
        let length = Self.headerLength + data.count
        bytes += [UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length), classNumber, classType]
        bytes += data
    }

    static func bytes(of word: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> $0) }
    }
}

extension MPLSLabelStackEntry {
    /// RFC 3032 section 2.1's word; a label past 20 bits keeps its low 20.
    public var word: UInt32 {
        (label & 0xfffff) << 12 | UInt32(trafficClass & 7) << 9 | (bottomOfStack ? 1 << 8 : 0) | UInt32(ttl)
    }
}

extension InterfaceInformation {
    /// The fields in RFC 5837's order: ifIndex, the address sub-object (AFI 1 or 2, a reserved
    /// half-word), the name sub-object (its length octet, then the name NUL-padded to whole
    /// words, at most 63 bytes of it), the MTU.
    var encodedData: [UInt8] {
        var data: [UInt8] = []
        if let ifIndex { data += ICMPExtensionObject.bytes(of: ifIndex) }
        if let address { data += [0, address.family == .ipv4 ? 1 : 2, 0, 0] + address.bytes }
        if let name {
            let kept = Array(name.prefix(Self.longestName - 1))
            let length = (kept.count + 1 + 3) / 4 * 4
            data += [UInt8(length)] + kept + [UInt8](repeating: 0, count: length - 1 - kept.count)
        }
        if let mtu { data += ICMPExtensionObject.bytes(of: mtu) }
        return data
    }
}

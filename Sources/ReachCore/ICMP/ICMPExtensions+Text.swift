import ReachSystem

extension ICMPExtensions {
    /// The extensions as traceroute 2.1.2 `-e` prints them between `<` and `>` after a hop's
    /// address (extension.c try_extension): objects separated by `;`, an MPLS stack as
    /// `MPLS:L=label,E=exp,S=bottom,T=ttl` with its entries separated by `/`, anything else,
    /// interface information too (2.1.2 does not read RFC 5837), as `class/type:` and its
    /// words in hex.
    public var tracerouteText: String {
        objects.map(\.tracerouteText).joined(separator: ";")
    }
}

extension ICMPExtensionObject {
    public var tracerouteText: String {
        switch self {
        case .mplsLabelStack(let entries):
            let labels = entries.map { "L=\($0.label),E=\($0.trafficClass),S=\($0.bottomOfStack ? 1 : 0),T=\($0.ttl)" }
            return "MPLS:" + labels.joined(separator: "/")
        case .interfaceInformation(let information):
            return Self.words(classNumber: classNumber, classType: classType, information.encodedData)
        case .other(let classNumber, let classType, let data):
            return Self.words(classNumber: classNumber, classType: classType, data)
        }
    }

    /// `class/type:` and the data's words as `%08x`, separated by `,`.
    static func words(classNumber: UInt8, classType: UInt8, _ data: [UInt8]) -> String {
        let words = stride(from: 0, to: data.count - data.count % 4, by: 4).map { hexWord(word(data, at: $0)) }
        return "\(classNumber)/\(classType):" + words.joined(separator: ",")
    }

    /// `%08x`.
    public static func hexWord(_ word: UInt32) -> String {
        let digits = String(word, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

extension InterfaceInformation {
    /// traceroute's names for the roles (extension.c print_iface_info).
    public var roleText: String {
        switch role {
        case .incoming: "INC"
        case .subIPComponent: "SUB"
        case .outgoing: "OUT"
        case .nextHop: "NXT"
        }
    }

    /// The interface as later traceroutes print it (2.1.3's extension.c print_iface_info):
    /// `ROLE:ifindex,address,"name",mtu=N`, the fields present.
    public var text: String {
        var fields: [String] = []
        if let ifIndex { fields.append(String(ifIndex)) }
        if let address { fields.append(address.description) }
        if let name { fields.append("\"" + Self.escapedName(name) + "\"") }
        if let mtu { fields.append("mtu=\(mtu)") }
        return roleText + ":" + fields.joined(separator: ",")
    }

    /// The name as traceroute prints it: a byte outside printable ASCII, `%` and `"` as `%XX`
    /// (upper-case hex), so the name cannot break the line or the quotes around it.
    public static func escapedName(_ name: [UInt8]) -> String {
        let hex: [Character] = Array("0123456789ABCDEF")
        var text = ""
        for byte in name {
            if byte > 0x20 && byte < 0x7f && byte != UInt8(ascii: "%") && byte != UInt8(ascii: "\"") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xf)])
            }
        }
        return text
    }
}

import ReachCore

extension ICMPExtensions {
    /// docs/JSON.md, "ICMP extensions": one object per extension object, in the order
    /// the router sent them, each with its class and c-type and a `kind` saying which
    /// fields follow.
    var json: JSONValue { .array(objects.map(\.json)) }
}

extension ICMPExtensionObject {
    var json: JSONValue {
        let header: [(String, JSONValue)] = [("class", .int(Int64(classNumber))), ("type", .int(Int64(classType)))]
        switch self {
        case .mplsLabelStack(let entries):
            return .object(header + [("kind", .string("mpls")), ("labels", .array(entries.map(\.json)))])
        case .interfaceInformation(let information):
            return .object(header + [("kind", .string("interface"))] + information.jsonMembers)
        case .other(_, _, let data):
            let hex = data.map { ICMPExtensionObject.hexWord(UInt32($0)).suffix(2) }.joined()
            return .object(header + [("kind", .string("other")), ("data", .string(hex))])
        }
    }
}

extension MPLSLabelStackEntry {
    var json: JSONValue {
        .object([
            ("label", .int(Int64(label))), ("traffic_class", .int(Int64(trafficClass))),
            ("bottom_of_stack", .bool(bottomOfStack)), ("ttl", .int(Int64(ttl))),
        ])
    }
}

extension InterfaceInformation {
    /// The role by RFC 5837's words; a field the router left out is `null`. The name is
    /// UTF-8 (RFC 5837 section 4.4), bytes that are not read as U+FFFD.
    var jsonMembers: [(String, JSONValue)] {
        let roles = ["incoming", "sub_ip_component", "outgoing", "next_hop"]
        return [
            ("role", .string(roles[Int(role.rawValue)])), ("ifindex", ifIndex.map { .int(Int64($0)) } ?? .null),
            ("address", .optional(address?.description)), ("name", .optional(name.map { String(decoding: $0, as: UTF8.self) })),
            ("mtu", mtu.map { .int(Int64($0)) } ?? .null),
        ]
    }
}

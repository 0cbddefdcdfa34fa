import ReachSystem

/// What a policy rule does with a packet it matches (`fib_rule_hdr.action`, mirrors FR_ACT_*
/// in <linux/fib_rules.h>).
public struct RuleAction: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let toTable = RuleAction(rawValue: 1) // FR_ACT_TO_TBL
    public static let goto = RuleAction(rawValue: 2) // FR_ACT_GOTO
    public static let nop = RuleAction(rawValue: 3) // FR_ACT_NOP
    public static let blackhole = RuleAction(rawValue: 6) // FR_ACT_BLACKHOLE
    public static let unreachable = RuleAction(rawValue: 7) // FR_ACT_UNREACHABLE
    public static let prohibit = RuleAction(rawValue: 8) // FR_ACT_PROHIBIT
}

/// The rule attribute types reach reads (FRA_* in <linux/fib_rules.h>); KernelConstantsTests
/// holds each to the header.
enum RuleAttribute {
    static let destination: UInt16 = 1 // FRA_DST
    static let source: UInt16 = 2 // FRA_SRC
    static let inputInterfaceName: UInt16 = 3 // FRA_IIFNAME
    static let priority: UInt16 = 6 // FRA_PRIORITY
    static let firewallMark: UInt16 = 10 // FRA_FWMARK
    static let tunnelID: UInt16 = 12 // FRA_TUN_ID
    static let suppressPrefixLength: UInt16 = 14 // FRA_SUPPRESS_PREFIXLEN
    static let table: UInt16 = 15 // FRA_TABLE
    static let firewallMask: UInt16 = 16 // FRA_FWMASK
    static let outputInterfaceName: UInt16 = 17 // FRA_OIFNAME
    static let l3mdev: UInt16 = 19 // FRA_L3MDEV
    static let uidRange: UInt16 = 20 // FRA_UID_RANGE
    static let ipProtocol: UInt16 = 22 // FRA_IP_PROTO
    static let sourcePortRange: UInt16 = 23 // FRA_SPORT_RANGE
    static let destinationPortRange: UInt16 = 24 // FRA_DPORT_RANGE
}

/// One `ip rule`: its priority, what it matches and the table it sends packets to.
public struct PolicyRule: Equatable, Sendable {
    public var family: AddressFamily
    public var priority: UInt32 = 0
    public var action: RuleAction
    public var table: UInt32
    /// `not`: the rule applies to what its selectors do not match (FIB_RULE_INVERT).
    public var inverted = false
    /// The selectors as `ip rule` writes them ("from 198.51.100.0/24", "fwmark 0x1"), in its order.
    public var selectors: [String] = []
    /// `iif NAME`: locally sent packets come in on lo (flowi4_iif is LOOPBACK_IFINDEX in
    /// ip_route_output_key_hash, net/ipv4/route.c), so any other name never matches them.
    public var inputInterface: String?
    /// `suppress_prefixlength N`: answers whose prefix is N bits or shorter are refused
    /// (fib4_rule_suppress in net/ipv4/fib_rules.c), a default route always; nil: none.
    public var suppressPrefixLength: UInt32?
    /// A VRF rule (`l3mdev`): its table depends on the packet's device, not on this rule.
    public var l3mdev = false

    /// `fib_rule_hdr.flags`' FIB_RULE_INVERT.
    static let invertFlag: UInt32 = 0x2

    public init(family: AddressFamily, priority: UInt32 = 0, action: RuleAction = .toTable, table: UInt32) {
        self.family = family
        self.priority = priority
        self.action = action
        self.table = table
    }

    /// The rule matches every packet this host sends.
    public var matchesAll: Bool { selectors.isEmpty && !inverted }

    /// The selectors on one line, "all" for none (as `ip rule` prints them).
    public var selectorText: String {
        if selectors.isEmpty { return inverted ? "not all" : "all" }
        return (inverted ? "not " : "") + selectors.joined(separator: " ")
    }

    /// Whether a lookup of this host's own traffic can end in this rule's table's default
    /// route: a table rule that neither asks for another input link nor suppresses it.
    public var canSelectDefaultRoute: Bool {
        guard action == .toTable, !l3mdev, suppressPrefixLength == nil else { return false }
        return inputInterface == nil || inputInterface == "lo"
    }
}

/// RTM_GETRULE: the dump request and the decoding of RTM_NEWRULE (struct fib_rule_hdr, then
/// attributes).
public enum RuleMessage {
    public static let headerLength = 12 // struct fib_rule_hdr

    /// The payload of a dump of one family's rules: a fib_rule_hdr with only the family set,
    /// as iproute2's `ip rule show` sends it (rtnl_ruledump_req in lib/libnetlink.c).
    public static func dumpPayload(family: AddressFamily) -> [UInt8] {
        [UInt8(family.kernelValue)] + [UInt8](repeating: 0, count: headerLength - 1)
    }

    /// Decodes an RTM_NEWRULE payload; unknown attributes are skipped.
    public static func decode(_ payload: ArraySlice<UInt8>) throws -> PolicyRule {
        var reader = ByteReader(payload)
        let familyValue = try reader.readUInt8()
        guard let family = AddressFamily(kernelValue: Int32(familyValue)) else {
            throw ParseError(offset: 0, "rule family \(familyValue) is neither IPv4 nor IPv6")
        }
        let destinationLength = try reader.readUInt8()
        let sourceLength = try reader.readUInt8()
        let tos = try reader.readUInt8()
        let table = try reader.readUInt8()
        try reader.skip(2) // res1, res2
        let action = RuleAction(rawValue: try reader.readUInt8())
        let flags = try reader.readHostUInt32()
        var rule = PolicyRule(family: family, action: action, table: UInt32(table))
        rule.inverted = flags & PolicyRule.invertFlag != 0
        var mark: (value: UInt32, mask: UInt32?)?
        for attribute in try NetlinkAttribute.parseAll(payload.dropFirst(headerLength)) {
            switch attribute.kind {
            case RuleAttribute.priority: rule.priority = try attribute.uint32()
            case RuleAttribute.table: rule.table = try attribute.uint32()
            case RuleAttribute.source: rule.selectors.append("from " + prefix(attribute, family, sourceLength))
            case RuleAttribute.destination: rule.selectors.append("to " + prefix(attribute, family, destinationLength))
            case RuleAttribute.inputInterfaceName:
                rule.inputInterface = attribute.string()
                rule.selectors.append("iif " + attribute.string())
            case RuleAttribute.outputInterfaceName: rule.selectors.append("oif " + attribute.string())
            case RuleAttribute.firewallMark: mark = (try attribute.uint32(), mark?.mask)
            case RuleAttribute.firewallMask: mark = (mark?.value ?? 0, try attribute.uint32())
            case RuleAttribute.uidRange: rule.selectors.append("uidrange " + (try uidRange(attribute)))
            case RuleAttribute.suppressPrefixLength:
                // The kernel writes -1 for none (fib_nl_fill_rule in net/core/fib_rules.c).
                let length = try attribute.uint32()
                rule.suppressPrefixLength = length == UInt32.max ? nil : length
            case RuleAttribute.l3mdev: rule.l3mdev = try attribute.uint8() != 0
            case RuleAttribute.tunnelID, RuleAttribute.ipProtocol, RuleAttribute.sourcePortRange, RuleAttribute.destinationPortRange:
                rule.selectors.append("attribute \(attribute.kind)")
            default: continue
            }
        }
        if tos != 0 { rule.selectors.append("tos \(hex(UInt32(tos)))") }
        if let mark {
            // `ip rule` writes the mask only when it is not all ones.
            let mask = mark.mask.map { $0 == 0xffff_ffff ? "" : "/" + hex($0) } ?? ""
            rule.selectors.append("fwmark " + hex(mark.value) + mask)
        }
        return rule
    }

    /// `198.51.100.0/24`; a full-length prefix is written as the address alone, as `ip rule` does.
    private static func prefix(_ attribute: NetlinkAttribute, _ family: AddressFamily, _ length: UInt8) -> String {
        let text = attribute.address(family: family)?.description ?? "?"
        return length == family.prefixLength ? text : "\(text)/\(length)"
    }

    private static func uidRange(_ attribute: NetlinkAttribute) throws -> String {
        guard attribute.value.count >= 8 else { throw ParseError(offset: 0, "FRA_UID_RANGE holds \(attribute.value.count) bytes, need 8") }
        let start = try NetlinkAttribute(type: attribute.type, value: attribute.value.prefix(4)).uint32()
        let end = try NetlinkAttribute(type: attribute.type, value: attribute.value.dropFirst(4)).uint32()
        return "\(start)-\(end)"
    }

    private static func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16) }
}

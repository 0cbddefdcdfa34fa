import Foundation
import TestSupport
import XCTest

@testable import ReachCore

/// The netlink codecs write the kernel's numbers as Swift literals, so ReachCore compiles
/// without the C headers; this holds each literal to the header it mirrors. The headers'
/// values come from a C program the test compiles with the system's C compiler, so no Swift
/// module above ReachSystem imports the C shims, tests included.
final class KernelConstantsTests: XCTestCase {
    /// Each Swift literal, with the C expression it must equal.
    private var literals: [(name: String, value: Int)] { netlinkLiterals + linkLiterals + ruleLiterals }

    /// The policy rules' dump: message type, actions, flags and attributes, and the routes'
    /// metric and next hops.
    private var ruleLiterals: [(name: String, value: Int)] {
        [
            ("RTM_GETRULE", Int(NetlinkMessageType.getRule.rawValue)),
            ("RTA_PRIORITY", Int(RouteAttribute.priority)),
            ("RTA_MULTIPATH", Int(RouteAttribute.multipath)),
            ("FR_ACT_TO_TBL", Int(RuleAction.toTable.rawValue)),
            ("FR_ACT_GOTO", Int(RuleAction.goto.rawValue)),
            ("FR_ACT_NOP", Int(RuleAction.nop.rawValue)),
            ("FR_ACT_BLACKHOLE", Int(RuleAction.blackhole.rawValue)),
            ("FR_ACT_UNREACHABLE", Int(RuleAction.unreachable.rawValue)),
            ("FR_ACT_PROHIBIT", Int(RuleAction.prohibit.rawValue)),
            ("FIB_RULE_INVERT", Int(PolicyRule.invertFlag)),
            ("FRA_DST", Int(RuleAttribute.destination)),
            ("FRA_SRC", Int(RuleAttribute.source)),
            ("FRA_IIFNAME", Int(RuleAttribute.inputInterfaceName)),
            ("FRA_PRIORITY", Int(RuleAttribute.priority)),
            ("FRA_FWMARK", Int(RuleAttribute.firewallMark)),
            ("FRA_TUN_ID", Int(RuleAttribute.tunnelID)),
            ("FRA_SUPPRESS_PREFIXLEN", Int(RuleAttribute.suppressPrefixLength)),
            ("FRA_TABLE", Int(RuleAttribute.table)),
            ("FRA_FWMASK", Int(RuleAttribute.firewallMask)),
            ("FRA_OIFNAME", Int(RuleAttribute.outputInterfaceName)),
            ("FRA_L3MDEV", Int(RuleAttribute.l3mdev)),
            ("FRA_UID_RANGE", Int(RuleAttribute.uidRange)),
            ("FRA_IP_PROTO", Int(RuleAttribute.ipProtocol)),
            ("FRA_SPORT_RANGE", Int(RuleAttribute.sourcePortRange)),
            ("FRA_DPORT_RANGE", Int(RuleAttribute.destinationPortRange)),
        ]
    }

    /// Netlink's message flags and types, route types, flags and attributes.
    private var netlinkLiterals: [(name: String, value: Int)] {
        [
            ("NLM_F_REQUEST", Int(NetlinkMessageFlags.request.rawValue)),
            ("NLM_F_MULTI", Int(NetlinkMessageFlags.multi.rawValue)),
            ("NLM_F_ACK", Int(NetlinkMessageFlags.acknowledge.rawValue)),
            ("NLM_F_DUMP_INTR", Int(NetlinkMessageFlags.dumpInterrupted.rawValue)),
            ("NLM_F_DUMP", Int(NetlinkMessageFlags.dump.rawValue)),
            ("NLMSG_NOOP", Int(NetlinkMessageType.noop.rawValue)),
            ("NLMSG_ERROR", Int(NetlinkMessageType.error.rawValue)),
            ("NLMSG_DONE", Int(NetlinkMessageType.done.rawValue)),
            ("NLMSG_OVERRUN", Int(NetlinkMessageType.overrun.rawValue)),
            ("RTM_NEWLINK", Int(NetlinkMessageType.newLink.rawValue)),
            ("RTM_DELLINK", Int(NetlinkMessageType.deleteLink.rawValue)),
            ("RTM_GETLINK", Int(NetlinkMessageType.getLink.rawValue)),
            ("RTM_NEWADDR", Int(NetlinkMessageType.newAddress.rawValue)),
            ("RTM_DELADDR", Int(NetlinkMessageType.deleteAddress.rawValue)),
            ("RTM_NEWROUTE", Int(NetlinkMessageType.newRoute.rawValue)),
            ("RTM_DELROUTE", Int(NetlinkMessageType.deleteRoute.rawValue)),
            ("RTM_GETROUTE", Int(NetlinkMessageType.getRoute.rawValue)),
            ("RTM_NEWRULE", Int(NetlinkMessageType.newRule.rawValue)),
            ("RTM_DELRULE", Int(NetlinkMessageType.deleteRule.rawValue)),
            ("RTN_UNSPEC", Int(RouteType.unspecified.rawValue)),
            ("RTN_UNICAST", Int(RouteType.unicast.rawValue)),
            ("RTN_LOCAL", Int(RouteType.local.rawValue)),
            ("RTN_BROADCAST", Int(RouteType.broadcast.rawValue)),
            ("RTN_ANYCAST", Int(RouteType.anycast.rawValue)),
            ("RTN_MULTICAST", Int(RouteType.multicast.rawValue)),
            ("RTN_BLACKHOLE", Int(RouteType.blackhole.rawValue)),
            ("RTN_UNREACHABLE", Int(RouteType.unreachable.rawValue)),
            ("RTN_PROHIBIT", Int(RouteType.prohibit.rawValue)),
            ("RTN_THROW", Int(RouteType.throw.rawValue)),
            ("RTNH_F_DEAD", Int(RouteFlags.dead.rawValue)),
            ("RTNH_F_ONLINK", Int(RouteFlags.onLink.rawValue)),
            ("RTNH_F_LINKDOWN", Int(RouteFlags.linkDown.rawValue)),
            ("RTA_DST", Int(RouteAttribute.destination)),
            ("RTA_SRC", Int(RouteAttribute.source)),
            ("RTA_OIF", Int(RouteAttribute.outputInterface)),
            ("RTA_MARK", Int(RouteAttribute.mark)),
            ("RTA_UID", Int(RouteAttribute.uid)),
            ("RTA_GATEWAY", Int(RouteAttribute.gateway)),
            ("RTA_PREFSRC", Int(RouteAttribute.preferredSource)),
            ("RTA_TABLE", Int(RouteAttribute.table)),
            ("RTA_VIA", Int(RouteAttribute.via)),
        ]
    }

    /// Link attributes and hardware types.
    private var linkLiterals: [(name: String, value: Int)] {
        [
            ("IFLA_IFNAME", Int(LinkAttribute.name)),
            ("IFLA_OPERSTATE", Int(LinkAttribute.operState)),
            ("IFLA_LINKINFO", Int(LinkAttribute.linkInfo)),
            ("IFLA_EXT_MASK", Int(LinkAttribute.extendedMask)),
            ("IFLA_CARRIER", Int(LinkAttribute.carrier)),
            ("IFLA_INFO_KIND", Int(LinkAttribute.infoKind)),
            ("IFLA_INFO_DATA", Int(LinkAttribute.infoData)),
            ("RTEXT_FILTER_SKIP_STATS", Int(LinkMessage.skipStatistics)),
            ("ARPHRD_ETHER", Int(HardwareType.ether.rawValue)),
            ("ARPHRD_PPP", Int(HardwareType.ppp.rawValue)),
            ("ARPHRD_RAWIP", Int(HardwareType.rawIP.rawValue)),
            ("ARPHRD_TUNNEL", Int(HardwareType.tunnel.rawValue)),
            ("ARPHRD_TUNNEL6", Int(HardwareType.tunnel6.rawValue)),
            ("ARPHRD_SIT", Int(HardwareType.sit.rawValue)),
            ("ARPHRD_IPGRE", Int(HardwareType.ipgre.rawValue)),
            ("ARPHRD_LOOPBACK", Int(HardwareType.loopback.rawValue)),
            ("ARPHRD_NONE", Int(HardwareType.none.rawValue)),
        ]
    }

    /// Compiles and runs a C program printing `NAME value` for each name, from the headers
    /// the C shims include (the kernel's uapi headers, as Debian's linux-libc-dev has them).
    private func headerValues(_ names: [String]) throws -> [String: Int] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-constants-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("constants.c")
        let program = directory.appendingPathComponent("constants")
        let lines = names.map { "    printf(\"\($0) %ld\\n\", (long)(\($0)));" }
        let text = ["#include <stdio.h>", "#include <linux/netlink.h>", "#include <linux/rtnetlink.h>", "#include <linux/if_link.h>",
                    "#include <linux/fib_rules.h>",
                    "#include <linux/if_arp.h>", "int main(void) {"] + lines + ["    return 0;", "}", ""]
        try text.joined(separator: "\n").write(to: source, atomically: true, encoding: .utf8)
        let compiler = ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let compiler else { try ContinuousIntegration.cannotRun("no C compiler to read the kernel headers with") }
        try run(compiler, [source.path, "-o", program.path])
        var values: [String: Int] = [:]
        for line in try run(program.path, []).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let value = Int(fields[1]) { values[String(fields[0])] = value }
        }
        return values
    }

    @discardableResult
    private func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(executable) \(arguments.joined(separator: " "))")
        return String(decoding: data, as: UTF8.self)
    }

    func testEveryLiteralIsTheHeadersValue() throws {
        let literals = self.literals
        let headers = try headerValues(literals.map(\.name))
        XCTAssertEqual(headers.count, literals.count, "every constant printed")
        for (name, value) in literals {
            XCTAssertEqual(value, headers[name], name)
        }
    }
}

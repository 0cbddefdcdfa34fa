#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The network for `reach ping`: lighter than `LabTopology` (no tun devices, no DNS).
///
/// ```
///  client v0 ──── r0 router r1 ──── f0 far
///  198.18.0.2       .0.1   .1.1       198.18.1.2 (answers), 198.18.1.3 (drops echo requests)
///  2001:db8::2      ::1    1::1       2001:db8:1::2, 2001:db8:1::3 (drops)
/// ```
/// The router has `unreachable` routes for 198.19.9.0/24 and 2001:db8:f1::/48 and sends
/// ICMP errors without rate limit (icmp_ratelimit, default 1000 ms per destination, makes counts flaky; ip-sysctl.rst).
struct PingTopology {
    let client: Namespace
    let router: Namespace
    let far: Namespace

    init(lab: NetworkLab) throws {
        client = try lab.namespace("c")
        router = try lab.namespace("r")
        far = try lab.namespace("f")
        try lab.veth("v0", in: client, peer: "r0", in: router)
        try lab.veth("r1", in: router, peer: "f0", in: far)
        for (namespace, link, v4, v6) in [
            (client, "v0", "198.18.0.2/24", "2001:db8::2/64"),
            (router, "r0", "198.18.0.1/24", "2001:db8::1/64"),
            (router, "r1", "198.18.1.1/24", "2001:db8:1::1/64"),
            (far, "f0", "198.18.1.2/24", "2001:db8:1::2/64"),
        ] {
            try namespace.ip("addr", "add", v4, "dev", link)
            try namespace.ip("-6", "addr", "add", v6, "dev", link, "nodad")
        }
        try far.ip("addr", "add", "198.18.1.3/24", "dev", "f0")
        try far.ip("-6", "addr", "add", "2001:db8:1::3/64", "dev", "f0", "nodad")
        try router.sysctl(["net.ipv4.icmp_ratelimit=0", "net.ipv6.icmp.ratelimit=0"])
        try client.ip("route", "add", "default", "via", "198.18.0.1")
        try client.ip("-6", "route", "add", "default", "via", "2001:db8::1")
        try far.ip("route", "add", "default", "via", "198.18.1.1")
        try far.ip("-6", "route", "add", "default", "via", "2001:db8:1::1")
        try router.ip("route", "add", "unreachable", "198.19.9.0/24")
        try router.ip("-6", "route", "add", "unreachable", "2001:db8:f1::/48")
        try Self.nft(
            lab: lab, in: far, name: "drop",
            """
            table inet rchdrop {
              chain input {
                type filter hook input priority 0;
                ip daddr 198.18.1.3 icmp type echo-request drop
                ip6 daddr 2001:db8:1::3 icmpv6 type echo-request drop
              }
            }
            """)
        for (namespace, link) in [(client, "v0"), (router, "r0"), (router, "r1"), (far, "f0")] {
            try namespace.waitFor(link: link, operstate: "UP")
        }
        try client.waitForPingReplies(from: ["198.18.1.2", "2001:db8:1::2"], what: "the ping topology")
    }

    /// Loads an nftables ruleset into `namespace`.
    static func nft(lab: NetworkLab, in namespace: Namespace, name: String, _ rules: String) throws {
        let path = try lab.script("\(namespace.name)-\(name).nft", rules)
        try Subprocess.check(["ip", "netns", "exec", namespace.name, "nft", "-f", path])
    }
}

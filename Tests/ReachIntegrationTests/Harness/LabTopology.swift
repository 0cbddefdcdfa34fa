import Foundation

/// The test network, built in one lab. `client` is where reach runs.
///
/// ```
///  client v0 ──── r0 router r1 ──── f0 far         198.18.0.0/24, 198.18.1.0/24
///         v2 ──── d0 dead (set down: v2 loses carrier, keeps its routes)  198.18.2.0/24
///         v3 ──── e0 spare (v3 can be set admin down: routes flushed)     198.18.3.0/24
///         tun0 (a process attached, carrier)   198.51.100.2 peer .1, 198.51.100.128/25
///         tun1 (nothing attached, no carrier)  198.51.100.6 peer .5
///         reject routes 203.0.113.0/24 and 2001:db8:f1::/48 .. f4::/48 (unreachable,
///         blackhole, prohibit, throw); an ip rule sending 198.18.9.0/24 and
///         2001:db8:9::/48 to table 100 (main has blackholes for both); a multipath
///         route 198.18.20.0/24, 2001:db8:20::/48 over v0 and v2
/// ```
/// IPv6 mirrors IPv4: 198.18.N.x is 2001:db8:N::x.
struct LabTopology {
    let lab: NetworkLab
    let client: Namespace
    let router: Namespace
    let far: Namespace
    let dead: Namespace
    let spare: Namespace
    let tunHolder: BackgroundProcess?

    /// Reject routes: (type, IPv4 prefix, IPv6 prefix, a destination in each, the reason reach gives).
    static let rejectRoutes: [(type: String, ipv4: String, ipv6: String, destinations: [String], reason: String)] = [
        ("unreachable", "203.0.113.0/26", "2001:db8:f1::/48", ["203.0.113.1", "2001:db8:f1::1"], "unreachable_route"),
        ("blackhole", "203.0.113.64/26", "2001:db8:f2::/48", ["203.0.113.65", "2001:db8:f2::1"], "blackhole_route"),
        ("prohibit", "203.0.113.128/26", "2001:db8:f3::/48", ["203.0.113.129", "2001:db8:f3::1"], "prohibited_route"),
        // The kernel answers a throw route with ENETUNREACH, like no route at all (measured; docs/LINUX-FACTS.md).
        ("throw", "203.0.113.192/26", "2001:db8:f4::/48", ["203.0.113.193", "2001:db8:f4::1"], "no_route"),
    ]

    /// Builds the whole network; `attachTun` starts the process holding tun0.
    init(lab: NetworkLab, defaultRoutes: Bool = false, attachTun: Bool = true) throws {
        self.lab = lab
        client = try lab.namespace("client")
        router = try lab.namespace("router")
        far = try lab.namespace("far")
        dead = try lab.namespace("dead")
        spare = try lab.namespace("spare")

        try lab.veth("v0", in: client, peer: "r0", in: router)
        try lab.veth("r1", in: router, peer: "f0", in: far)
        try lab.veth("v2", in: client, peer: "d0", in: dead)
        try lab.veth("v3", in: client, peer: "e0", in: spare)
        try Self.address(client, "v0", 0, host: 2)
        try Self.address(router, "r0", 0, host: 1)
        try Self.address(router, "r1", 1, host: 1)
        try Self.address(far, "f0", 1, host: 2)
        try Self.address(client, "v2", 2, host: 2)
        try Self.address(dead, "d0", 2, host: 1)
        try Self.address(client, "v3", 3, host: 2)
        try Self.address(spare, "e0", 3, host: 1)
        try far.ip("route", "add", "default", "via", "198.18.1.1")
        try far.ip("-6", "route", "add", "default", "via", "2001:db8:1::1")
        try client.ip("route", "add", "198.18.1.0/24", "via", "198.18.0.1")
        try client.ip("-6", "route", "add", "2001:db8:1::/64", "via", "2001:db8::1")
        for (namespace, link) in [(client, "v0"), (router, "r0"), (router, "r1"), (far, "f0"), (client, "v2"), (client, "v3")] {
            try namespace.waitFor(link: link, operstate: "UP")
        }

        // Tunnels: tun0 with a process attached, tun1 with nothing (persistent, so both exist
        // without a holder; carrier comes only while a process has the device open).
        for (name, local, peer, v6) in [("tun0", "198.51.100.2", "198.51.100.1", "2001:db8:5::2/64"),
                                        ("tun1", "198.51.100.6", "198.51.100.5", "2001:db8:6::2/64")] {
            try client.ip("tuntap", "add", "dev", name, "mode", "tun")
            try client.ip("addr", "add", local, "peer", peer, "dev", name)
            try client.ip("-6", "addr", "add", v6, "dev", name, "nodad")
            try client.ip("link", "set", name, "up")
        }
        try client.ip("route", "add", "198.51.100.128/25", "dev", "tun0")
        tunHolder = attachTun ? try lab.attachTun("tun0", in: client) : nil
        try addRoutesOfEveryKind()

        // The dead peer goes down last: v2 loses carrier, its routes stay (marked linkdown).
        try dead.ip("link", "set", "d0", "down")
        try client.waitFor(link: "v2", operstate: "DOWN") // a veth whose peer is down: NO-CARRIER, state DOWN

        if defaultRoutes { try setDefaultRoutes(ipv4: true, ipv6: true) }
    }

    /// The client's reject routes, its policy rule and its multipath route.
    private func addRoutesOfEveryKind() throws {
        for route in Self.rejectRoutes {
            try client.ip("route", "add", route.type, route.ipv4)
            try client.ip("-6", "route", "add", route.type, route.ipv6)
        }

        // Policy routing: table 100 reaches 198.18.9.0/24 through the router; main blackholes it.
        try client.ip("route", "add", "blackhole", "198.18.9.0/24")
        try client.ip("-6", "route", "add", "blackhole", "2001:db8:9::/48")
        try client.ip("route", "add", "198.18.9.0/24", "via", "198.18.0.1", "table", "100")
        try client.ip("-6", "route", "add", "2001:db8:9::/48", "via", "2001:db8::1", "table", "100")
        try client.ip("rule", "add", "to", "198.18.9.0/24", "lookup", "100", "pref", "100")
        try client.ip("-6", "rule", "add", "to", "2001:db8:9::/48", "lookup", "100", "pref", "100")

        // Multipath: 198.18.20.0/24 over both v0 and v2; the kernel picks a next hop by hash,
        // and keeps picking v2 after it loses carrier (ignore_routes_with_linkdown is 0).
        try client.ip("route", "add", "198.18.20.0/24", "nexthop", "via", "198.18.0.1", "dev", "v0",
                      "nexthop", "via", "198.18.2.1", "dev", "v2")
        try client.ip("-6", "route", "add", "2001:db8:20::/48", "nexthop", "via", "2001:db8::1", "dev", "v0",
                      "nexthop", "via", "2001:db8:2::1", "dev", "v2")
    }

    /// A target that never answers: the far end holds `address` and drops the echo requests
    /// to it (its own nftables table, beside any a test loads).
    func addSilentTarget(_ address: String) throws {
        try far.ip("addr", "add", "\(address)/24", "dev", "f0")
        try lab.nft(in: far, name: "silent", """
            table inet reach_silent {
              chain input { type filter hook input priority 0; ip daddr \(address) icmp type echo-request drop; }
            }
            """)
    }

    /// Adds or removes the default route of each family (through the router).
    func setDefaultRoutes(ipv4: Bool, ipv6: Bool) throws {
        _ = try client.exec(["ip", "route", "del", "default"])
        _ = try client.exec(["ip", "-6", "route", "del", "default"])
        if ipv4 { try client.ip("route", "add", "default", "via", "198.18.0.1", "dev", "v0") }
        if ipv6 { try client.ip("-6", "route", "add", "default", "via", "2001:db8::1", "dev", "v0") }
    }

    /// 198.18.N.host/24 and 2001:db8:N::host/64 on a link.
    private static func address(_ namespace: Namespace, _ link: String, _ network: Int, host: Int) throws {
        try namespace.ip("addr", "add", "198.18.\(network).\(host)/24", "dev", link)
        let prefix = network == 0 ? "2001:db8::" : "2001:db8:\(network)::"
        try namespace.ip("-6", "addr", "add", "\(prefix)\(host)/64", "dev", link, "nodad")
    }
}

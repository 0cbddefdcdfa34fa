import Foundation

/// Three namespaces in a row, the network of the ping tests (as it is) and of the probe tests
/// (through `ProbeTopology`, which names the far host "the internet" and serves HTTP there):
///
/// ```
///  client v0 ──── r0 router r1 ──── f0 far
///  198.18.0.2       .0.1   F.1        F.2 (answers), F.3 (drops echo requests)
///  2001:db8::2      ::1    1::1       2001:db8:1::2, 2001:db8:1::3 (drops)
/// ```
/// F, the far network's /24, is 198.18.1 (`FarNetwork.neighbouring`) or 198.51.100
/// (`FarNetwork.internet`, an address nothing else in the chain resembles); its IPv6 prefix is
/// 2001:db8:1::/64 either way.
///
/// The far host's default routes go through the router, and so do the client's unless
/// `defaultRoutes` is false. The router has `unreachable` routes for 198.19.9.0/24 and
/// 2001:db8:f1::/48, and sends ICMP errors without rate limit: the default limit (one error a
/// second per destination, for the types in icmp_ratemask) drops errors, and counts of them
/// become a matter of timing. Every namespace keeps its IPv6 addresses while a link is down
/// (keep_addr_on_down), so taking a link down and up again puts back exactly what was there.
struct ChainTopology {
    /// The far network's IPv4 /24, as its first three bytes.
    struct FarNetwork {
        let ipv4: String

        /// 198.18.1.0/24, beside the client's 198.18.0.0/24.
        static let neighbouring = FarNetwork(ipv4: "198.18.1")
        /// 198.51.100.0/24: "the internet" of the probe tests.
        static let internet = FarNetwork(ipv4: "198.51.100")
    }

    let lab: NetworkLab
    let client: Namespace
    let router: Namespace
    let far: Namespace
    let network: FarNetwork

    /// The far host's addresses that answer.
    var farIPv4: String { "\(network.ipv4).2" }
    let farIPv6 = "2001:db8:1::2"
    /// The far host's addresses that drop echo requests (nftables in the far host).
    var silentIPv4: String { "\(network.ipv4).3" }
    let silentIPv6 = "2001:db8:1::3"

    /// Builds the chain; with `defaultRoutes`, waits until the far host answers the client's pings.
    init(lab: NetworkLab, far network: FarNetwork = .neighbouring, defaultRoutes: Bool = true) throws {
        self.lab = lab
        self.network = network
        client = try lab.namespace("client")
        router = try lab.namespace("router")
        far = try lab.namespace("far")
        for namespace in [client, router, far] {
            try namespace.sysctl(["net.ipv6.conf.all.keep_addr_on_down=1", "net.ipv6.conf.default.keep_addr_on_down=1"])
        }
        try router.sysctl(["net.ipv4.icmp_ratelimit=0", "net.ipv6.icmp.ratelimit=0"])
        try lab.veth("v0", in: client, peer: "r0", in: router)
        try lab.veth("r1", in: router, peer: "f0", in: far)
        for (namespace, link, v4, v6) in [
            (client, "v0", "198.18.0.2/24", "2001:db8::2/64"),
            (router, "r0", "198.18.0.1/24", "2001:db8::1/64"),
            (router, "r1", "\(network.ipv4).1/24", "2001:db8:1::1/64"),
            (far, "f0", "\(farIPv4)/24", "\(farIPv6)/64"),
            (far, "f0", "\(silentIPv4)/24", "\(silentIPv6)/64"),
        ] {
            try namespace.ip("addr", "add", v4, "dev", link)
            try namespace.ip("-6", "addr", "add", v6, "dev", link, "nodad")
        }
        try far.ip("route", "add", "default", "via", "\(network.ipv4).1")
        try far.ip("-6", "route", "add", "default", "via", "2001:db8:1::1")
        if defaultRoutes {
            try client.ip("route", "add", "default", "via", "198.18.0.1")
            try client.ip("-6", "route", "add", "default", "via", "2001:db8::1")
        }
        try router.ip("route", "add", "unreachable", "198.19.9.0/24")
        try router.ip("-6", "route", "add", "unreachable", "2001:db8:f1::/48")
        try lab.nft(
            in: far, name: "silent",
            """
            table inet rchdrop {
              chain input {
                type filter hook input priority 0;
                ip daddr \(silentIPv4) icmp type echo-request drop
                ip6 daddr \(silentIPv6) icmpv6 type echo-request drop
              }
            }
            """)
        for (namespace, link) in [(client, "v0"), (router, "r0"), (router, "r1"), (far, "f0")] {
            try namespace.waitFor(link: link, operstate: "UP")
        }
        if defaultRoutes { try waitUntilTheFarHostAnswers() }
    }

    /// Waits until the far host answers the client's pings, in both families.
    func waitUntilTheFarHostAnswers() throws {
        try client.waitForPingReplies(from: [farIPv4, farIPv6], what: "the far host")
    }
}

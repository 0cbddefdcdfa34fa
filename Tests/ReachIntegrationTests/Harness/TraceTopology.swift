import Foundation

/// Five namespaces in a row, the network of the trace tests: a client, three routers and
/// a far host four hops away, each link its own /24 and /64:
///
/// ```
///  client ─────── r1 ──────── r2 ──────── r3 ──────── far
///  198.18.0.2   .0.1|.1.1   .1.2|.2.1   .2.2|.3.1   198.18.3.2
///  2001:db8::2  ::1|1::1    1::2|2::1   2::2|3::1   2001:db8:3::2
/// ```
/// (a router answers from its address toward the client: routerIPv4(n)). r2 has `unreachable` routes for
/// 198.19.9.0/24 and 2001:db8:f1::/48. Every namespace sends ICMP errors without rate
/// limit unless a test asks for one: the default limits (icmp_ratelimit per destination,
/// icmp_msgs_per_sec for all) would make the stars of back-to-back traces a matter of timing.
///
/// With `ecmp`, r1 reaches r3 over two routers, r2 and r2b (198.18.4.0/24 and
/// 198.18.5.0/24 on r2b's side, 2001:db8:4:: and 2001:db8:5::), by a multipath route that
/// hashes ports (fib_multipath_hash_policy=1): each flow takes one of them.
struct TraceTopology {
    let lab: NetworkLab
    let client: Namespace
    let routers: [Namespace]
    let far: Namespace
    let ecmpRouter: Namespace?

    let farIPv4 = "198.18.3.2"
    let farIPv6 = "2001:db8:3::2"
    /// Behind r2's unreachable routes.
    let unreachableIPv4 = "198.19.9.1"
    let unreachableIPv6 = "2001:db8:f1::1"

    /// Router N's (1...3) address toward the client.
    func routerIPv4(_ n: Int) -> String { n == 1 ? "198.18.0.1" : "198.18.\(n - 1).2" }
    func routerIPv6(_ n: Int) -> String { n == 1 ? "2001:db8::1" : "2001:db8:\(n - 1)::2" }
    /// r2b's address toward the client (ecmp).
    let ecmpRouterIPv4 = "198.18.4.2"
    let ecmpRouterIPv6 = "2001:db8:4::2"

    init(lab: NetworkLab, ecmp: Bool = false) throws {
        self.lab = lab
        client = try lab.namespace("client")
        routers = try (1...3).map { try lab.namespace("r\($0)") }
        far = try lab.namespace("far")
        ecmpRouter = ecmp ? try lab.namespace("r2b") : nil
        let chain = [client] + routers + [far]
        for namespace in chain + (ecmpRouter.map { [$0] } ?? []) {
            try namespace.sysctl([
                "net.ipv4.icmp_ratelimit=0", "net.ipv6.icmp.ratelimit=0", "net.ipv6.conf.all.keep_addr_on_down=1",
                // The global bucket too (icmp_global_allow, both families): 16 flows make more
                // errors at once than its default burst of 50.
                "net.ipv4.icmp_msgs_per_sec=100000", "net.ipv4.icmp_msgs_burst=100000",
                // r3 takes r2b's packets whose way back is through r2.
                "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0",
            ])
        }
        for router in routers + (ecmpRouter.map { [$0] } ?? []) {
            try router.sysctl(["net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1"])
        }
        for n in 0..<4 {
            try link(chain[n], "e\(n)r", chain[n + 1], "e\(n)l", subnet: n, leftHost: n == 0 ? 2 : 1, rightHost: n == 0 ? 1 : 2)
        }
        try routes()
        if let ecmpRouter { try multipath(through: ecmpRouter) }
        try routers[1].ip("route", "add", "unreachable", "198.19.9.0/24")
        try routers[1].ip("-6", "route", "add", "unreachable", "2001:db8:f1::/48")
        try client.waitForPingReplies(from: [farIPv4, farIPv6], what: "the far host")
    }

    /// A veth pair, `left` on `subnet`'s .leftHost and `right` on its .rightHost. In the chain
    /// the host nearer the client takes .1 except the client itself (.2, its router .1).
    private func link(
        _ left: Namespace, _ leftName: String, _ right: Namespace, _ rightName: String, subnet: Int, leftHost: Int,
        rightHost: Int
    ) throws {
        try lab.veth(leftName, in: left, peer: rightName, in: right)
        try left.ip("addr", "add", "198.18.\(subnet).\(leftHost)/24", "dev", leftName)
        try left.ip("-6", "addr", "add", "2001:db8:\(subnet)::\(leftHost)/64", "dev", leftName, "nodad")
        try right.ip("addr", "add", "198.18.\(subnet).\(rightHost)/24", "dev", rightName)
        try right.ip("-6", "addr", "add", "2001:db8:\(subnet)::\(rightHost)/64", "dev", rightName, "nodad")
        try left.waitFor(link: leftName, operstate: "UP")
        try right.waitFor(link: rightName, operstate: "UP")
    }

    /// Toward the far end through the next router, back toward the client through the one before.
    private func routes() throws {
        try client.ip("route", "add", "default", "via", "198.18.0.1")
        try client.ip("-6", "route", "add", "default", "via", "2001:db8::1")
        for (index, router) in routers.enumerated() {
            let n = index + 1
            if n < 3 {
                try router.ip("route", "add", "198.18.3.0/24", "via", "198.18.\(n).2")
                try router.ip("-6", "route", "add", "2001:db8:3::/64", "via", "2001:db8:\(n)::2")
                if n == 1 { try router.ip("route", "add", "198.18.2.0/24", "via", "198.18.1.2") }
                if n == 1 { try router.ip("-6", "route", "add", "2001:db8:2::/64", "via", "2001:db8:1::2") }
                // r1 sends these on to r2, whose unreachable routes answer.
                if n == 1 { try router.ip("route", "add", "198.19.9.0/24", "via", "198.18.1.2") }
                if n == 1 { try router.ip("-6", "route", "add", "2001:db8:f1::/48", "via", "2001:db8:1::2") }
            }
            if n > 1 {
                try router.ip("route", "add", "198.18.0.0/24", "via", "198.18.\(n - 1).1")
                try router.ip("-6", "route", "add", "2001:db8::/64", "via", "2001:db8:\(n - 1)::1")
            }
            if n == 3 {
                try router.ip("route", "add", "198.18.1.0/24", "via", "198.18.2.1")
                try router.ip("-6", "route", "add", "2001:db8:1::/64", "via", "2001:db8:2::1")
            }
        }
        try far.ip("route", "add", "default", "via", "198.18.3.1")
        try far.ip("-6", "route", "add", "default", "via", "2001:db8:3::1")
    }

    /// r2b beside r2: r1 reaches 198.18.3.0/24 through either, by a hash of the ports.
    private func multipath(through r2b: Namespace) throws {
        let (r1, r3) = (routers[0], routers[2])
        try link(r1, "m4r", r2b, "m4l", subnet: 4, leftHost: 1, rightHost: 2)
        try link(r2b, "m5r", r3, "m5l", subnet: 5, leftHost: 1, rightHost: 2)
        try r1.sysctl(["net.ipv4.fib_multipath_hash_policy=1", "net.ipv6.fib_multipath_hash_policy=1"])
        try r1.ip("route", "replace", "198.18.3.0/24", "nexthop", "via", "198.18.1.2", "nexthop", "via", "198.18.4.2")
        try r1.ip("-6", "route", "replace", "2001:db8:3::/64", "nexthop", "via", "2001:db8:1::2", "nexthop", "via", "2001:db8:4::2")
        try r2b.ip("route", "add", "198.18.3.0/24", "via", "198.18.5.2")
        try r2b.ip("-6", "route", "add", "2001:db8:3::/64", "via", "2001:db8:5::2")
        try r2b.ip("route", "add", "198.18.0.0/24", "via", "198.18.4.1")
        try r2b.ip("-6", "route", "add", "2001:db8::/64", "via", "2001:db8:4::1")
    }

    /// Router `hop` (1 to 3) sends no time exceeded, in either family: a silent hop, a line
    /// of stars in traceroute and mtr's `???`.
    func silenceTimeExceeded(at hop: Int) throws {
        try lab.nft(
            in: routers[hop - 1], name: "silent",
            """
            table inet rchsilent {
              chain output {
                type filter hook output priority 0;
                icmp type time-exceeded drop
                icmpv6 type time-exceeded drop
              }
            }
            """)
    }

    /// Fills the neighbour tables along the way: a cold table holds the first packets to a
    /// next hop while it resolves and drops those past its queue (unres_qlen), which a
    /// trace's simultaneous probes overflow.
    func warmNeighbours() throws {
        try client.waitForPingReplies(from: [farIPv4, farIPv6], what: "the far host")
        for n in 1...3 {
            try client.waitForPingReplies(from: [routerIPv4(n), routerIPv6(n)], what: "router \(n)")
        }
        if let ecmpRouter {
            try routers[0].waitForPingReplies(from: [ecmpRouterIPv4, ecmpRouterIPv6], what: "r2b")
            try ecmpRouter.waitForPingReplies(from: ["198.18.5.2", "2001:db8:5::2"], what: "r3 from r2b")
        }
    }
}

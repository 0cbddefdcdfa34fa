import Foundation

/// The network for connectivity probes: a host behind a router, and "the internet" beyond it,
/// built as a `ChainTopology` whose far network is 198.51.100.0/24.
///
/// ```
///  host v0 ──── r0 router r1 ──── f0 internet
///  198.18.0.2     198.18.0.1  198.51.100.1    198.51.100.2   HTTP on ports 80, 443 and 8000
///  2001:db8::2    2001:db8::1 2001:db8:1::1   2001:db8:1::2   (/generate_204: 204, /ok: 200)
/// ```
/// The host's default routes go through the router (unless `defaultRoutes` is false). The
/// router sends ICMP errors without rate limit and keeps its addresses while a link is down,
/// so `cutUplink()` / `restoreUplink()` put back exactly what was there.
struct ProbeTopology {
    static let internetV4 = "198.51.100.2"
    static let internetV6 = "2001:db8:1::2"
    /// Where the router's captive portal sends every HTTP request.
    static let portalLocation = "http://198.18.0.1:8080/login"
    /// The body /ok answers with; `--expect` looks for it.
    static let okText = "reach-probe-ok"

    let chain: ChainTopology
    /// The internet's HTTP server; its log has a line per request: `request CLIENT PATH HOST`.
    let server: BackgroundProcess

    var lab: NetworkLab { chain.lab }
    /// Where reach runs: the chain's client.
    var host: Namespace { chain.client }
    var router: Namespace { chain.router }
    /// The chain's far host.
    var internet: Namespace { chain.far }

    init(lab: NetworkLab, defaultRoutes: Bool = true) throws {
        chain = try ChainTopology(lab: lab, far: .internet, defaultRoutes: defaultRoutes)
        server = try Self.startHTTPServer(lab: lab, in: chain.far, mode: "ok", ports: [80, 443, 8000], label: "internet-http")
    }

    /// Helpers/probe-http-server.py on every port of `ports` (IPv4 and IPv6): "ok" answers
    /// /generate_204 with 204, /ok with 200 and `okText`, anything else with 404; "portal"
    /// answers every URL with 302 to `portalLocation`.
    static func startHTTPServer(lab: NetworkLab, in namespace: Namespace, mode: String, ports: [Int],
                                label: String) throws -> BackgroundProcess {
        let server = try lab.launchHelper(
            "probe-http-server.py", [mode, portalLocation, okText] + ports.map(String.init), in: namespace, label: label)
        try server.waitUntilReady(marker: "listening")
        return server
    }

    /// The requests a server's log shows, as (client, path, Host header).
    static func requests(in server: BackgroundProcess) -> [(client: String, path: String, host: String)] {
        server.log.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard words.count == 4, words[0] == "request" else { return nil }
            return (words[1], words[2], words[3])
        }
    }

    func waitUntilTheInternetAnswers() throws {
        try chain.waitUntilTheFarHostAnswers()
    }

    /// Routes to the internet's own prefixes only, no default route: "the internet" has no
    /// route, yet a probe sent by mistake would arrive (and be counted, see `countHostPackets`).
    func routeOnlyToTheInternetsPrefixes() throws {
        try host.ip("route", "add", "198.51.100.0/24", "via", "198.18.0.1")
        try host.ip("-6", "route", "add", "2001:db8:1::/64", "via", "2001:db8::1")
        try waitUntilTheInternetAnswers()
    }

    /// The router's uplink set admin down: its routes to the internet go, and it answers
    /// the host's packets with ICMP "network unreachable".
    func cutUplink() throws {
        try router.ip("link", "set", "r1", "down")
    }

    func restoreUplink() throws {
        try router.ip("link", "set", "r1", "up")
        try router.waitFor(link: "r1", operstate: "UP")
        try waitUntilTheInternetAnswers()
    }

    /// The router forwards nothing to the internet and says nothing about it: every probe
    /// can only time out.
    func dropUplinkSilently() throws {
        try lab.nft(
            in: router, name: "silent",
            """
            table inet rchsilent {
              chain forward {
                type filter hook forward priority 0;
                oifname "r1" drop
              }
            }
            """)
    }

    /// A captive portal in the router: its own HTTP server on 8080 answers 302 to every URL,
    /// and the host's port-80 traffic is redirected to it (nftables, both families).
    func startPortal() throws -> BackgroundProcess {
        let portal = try Self.startHTTPServer(lab: lab, in: router, mode: "portal", ports: [8080], label: "portal-http")
        try lab.nft(
            in: router, name: "portal",
            """
            table inet rchportal {
              chain prerouting {
                type nat hook prerouting priority dstnat;
                iifname "r0" tcp dport 80 redirect to :8080
              }
            }
            """)
        return portal
    }

    /// An nftables counter in the internet of every packet that comes from the host's
    /// networks; read it with `hostPacketsSeen()`.
    func countHostPackets() throws {
        try lab.nft(
            in: internet, name: "count",
            """
            table inet rchcount {
              counter fromhost { }
              chain input {
                type filter hook input priority 0;
                ip saddr 198.18.0.0/24 counter name "fromhost"
                ip6 saddr 2001:db8::/64 counter name "fromhost"
              }
            }
            """)
    }

    func hostPacketsSeen() throws -> Int {
        let result = try Subprocess.check(
            ["ip", "netns", "exec", internet.name, "nft", "-j", "list", "counter", "inet", "rchcount", "fromhost"])
        let decoded = try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: Any]
        let entries = decoded?["nftables"] as? [[String: Any]] ?? []
        guard let counter = entries.compactMap({ $0["counter"] as? [String: Any] }).first,
            let packets = counter["packets"] as? Int
        else { throw HarnessError("no counter in \(result)") }
        return packets
    }
}

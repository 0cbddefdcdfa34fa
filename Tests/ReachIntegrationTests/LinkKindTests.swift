import XCTest

/// The kind reach names for each link type this kernel lets us make (docs/LINUX-FACTS.md), with
/// the flags that follow from it. Taken from netlink, so right inside a namespace.
final class LinkKindTests: NamespaceTestCase {
    func testKindsOfRealLinks() throws {
        let client = try lab.namespace("client")
        let peer = try lab.namespace("peer")
        try lab.veth("v0", in: client, peer: "p0", in: peer)
        try client.ip("addr", "add", "198.18.0.2/24", "dev", "v0")
        try client.ip("link", "add", "br0", "type", "bridge")
        try client.ip("addr", "add", "198.18.10.2/24", "dev", "br0")
        try client.ip("link", "add", "mv0", "link", "v0", "type", "macvlan", "mode", "bridge")
        try client.ip("addr", "add", "198.18.11.2/24", "dev", "mv0")
        try client.ip("link", "add", "vx0", "type", "vxlan", "id", "42", "dstport", "4789", "local", "198.18.0.2")
        try client.ip("addr", "add", "198.18.12.2/24", "dev", "vx0")
        try client.ip("tuntap", "add", "dev", "tap0", "mode", "tap")
        try client.ip("addr", "add", "198.18.13.2/24", "dev", "tap0")
        try client.ip("tuntap", "add", "dev", "tun0", "mode", "tun")
        try client.ip("addr", "add", "198.18.14.2", "peer", "198.18.14.1", "dev", "tun0")
        for link in ["br0", "mv0", "vx0", "tap0", "tun0"] { try client.ip("link", "set", link, "up") }
        _ = try lab.attachTun("tap0", in: client, tap: true)
        _ = try lab.attachTun("tun0", in: client)
        try client.waitFor(link: "mv0", operstate: "UP")

        let expected: [(address: String, link: String, kind: String, flagString: String)] = [
            ("127.0.0.1", "lo", "loopback", "-R -----ld"),
            ("198.18.0.1", "v0", "virtual", "-R ------d"),
            ("198.18.10.1", "br0", "bridge", "-R ------d"),
            ("198.18.11.1", "mv0", "virtual", "-R ------d"),
            ("198.18.12.1", "vx0", "virtual", "-R ------d"),
            ("198.18.13.1", "tap0", "virtual", "-R ------d"), // a tap is Ethernet, not a tunnel
            ("198.18.14.1", "tun0", "vpn", "-R -t-----"),
        ]
        for entry in expected {
            let path = try XCTUnwrap(try reachJSON(["addr", entry.address], in: client, status: 0).paths.first)
            XCTAssertEqual(path.link?.name, entry.link, entry.address)
            XCTAssertEqual(path.link?.kind, entry.kind, entry.address)
            XCTAssertEqual(path.flagString, entry.flagString, entry.address)
        }
    }
}

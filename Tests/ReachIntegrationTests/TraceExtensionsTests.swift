import Foundation
import XCTest

/// ICMP extensions through the kernel and back: r2 answers expiring probes as an MPLS
/// router (Helpers/mpls-router.py: RFC 4884's length attribute, an MPLS label stack and
/// the incoming interface's information), the kernel hands the error to reach's UDP socket
/// on its error queue, and reach prints what traceroute 2.1.2 -e prints for it.
final class TraceExtensionsTests: NamespaceTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["ip", "traceroute", "nft", "mtr"])
    }

    /// The chain with r2's own time exceeded dropped and the helper answering instead.
    private func mplsChain() throws -> TraceTopology {
        let net = try TraceTopology(lab: lab)
        try lab.nft(
            in: net.routers[1], name: "mpls",
            """
            table inet rchmpls {
              chain output {
                type filter hook output priority 0;
                meta mark != 0x4242 icmp type time-exceeded drop
                meta mark != 0x4242 icmpv6 type time-exceeded drop
              }
            }
            """)
        let helper = try lab.launchHelper(
            "mpls-router.py", ["e1l", net.routerIPv4(2), net.routerIPv6(2)], in: net.routers[1], label: "mpls-router")
        try helper.waitUntilReady(marker: "listening")
        try net.warmNeighbours()
        return net
    }

    func testPrintsTheExtensionsAsTracerouteE() throws {
        let net = try mplsChain()
        // traceroute 2.1.2 prints the interface object's words (it does not read RFC 5837).
        let expected = "<MPLS:L=16,E=0,S=1,T=1;2/15:00000003,00010000,c6120102,0c67652d,302f302f,302e3000,000005dc>"
        for (target, router) in [(net.farIPv4, net.routerIPv4(2)), (net.farIPv6, net.routerIPv6(2))] {
            // One probe at a time: each waits its whole -w for its answer. With probes in
            // flight together, a slow run (a sanitizer's) may read the destination's answer
            // to one hop after the NEAR wait a later hop's answer set, and print a star;
            // what is tested here is the extensions, not the schedule (TraceTests has it).
            let arguments = ["-n", "-e", "-q", "1", "-N", "1", target]
            let ours = try ReachBinary.run(["trace"] + arguments, in: net.client, timeout: 60)
            let theirs = try net.client.exec(["traceroute"] + arguments, timeout: 60)
            XCTAssertEqual(ours.status, 0, "\(ours)")
            XCTAssertEqual(TraceTests.masked(ours), TraceTests.masked(theirs), "\(ours)\n\(theirs)")
            XCTAssertTrue(ours.stdoutLines.contains { $0.hasPrefix(" 2  \(router) \(expected)") }, "\(ours)")
        }
        // Without -e, traceroute -n's line.
        let plain = try ReachBinary.run(["trace", "-n", "-q", "1", net.farIPv4], in: net.client, timeout: 60)
        XCTAssertFalse(plain.stdout.contains("<"), "\(plain)")
    }

    func testTheReportAndItsJSONCarryTheExtensions() throws {
        let net = try mplsChain()
        let text = try ReachBinary.run(
            ["trace", "-n", "-e", "--report", "-c", "2", "--interval", "0.2", net.farIPv4], in: net.client, timeout: 60)
        XCTAssertEqual(text.status, 0, "\(text)")
        let row = text.stdoutLines.firstIndex { $0.hasPrefix("  2.|-- \(net.routerIPv4(2))") }
        XCTAssertNotNil(row, "\(text)")
        if let row {
            XCTAssertEqual(text.stdoutLines[row + 1], "    |   +-- [MPLS: Lbl 16 TC 0 S 1 TTL 1]", "mtr -e's line: \(text)")
            XCTAssertEqual(text.stdoutLines[row + 2], "    |   +-- [INC:3,198.18.1.2,\"ge-0/0/0.0\",mtu=1500]", "\(text)")
        }
        let json = try ReachBinary.run(
            ["trace", "--report", "-c", "1", "--interval", "0.2", "--json", net.farIPv4], in: net.client, timeout: 60)
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput)) as? [String: Any]
        let hops = object?["hops"] as? [[String: Any]] ?? []
        let objects = hops.count > 1 ? hops[1]["extensions"] as? [[String: Any]] ?? [] : []
        XCTAssertEqual(objects.map { $0["kind"] as? String ?? "" }, ["mpls", "interface"], "\(json)")
        let labels = objects.first?["labels"] as? [[String: Any]] ?? []
        XCTAssertEqual(labels.first?["label"] as? Int, 16)
        XCTAssertEqual(objects.last?["name"] as? String, "ge-0/0/0.0")
        XCTAssertEqual(objects.last?["mtu"] as? Int, 1500)
        XCTAssertEqual((hops.first?["extensions"] as? [Any])?.count, 0, "r1 sends none")
    }
}

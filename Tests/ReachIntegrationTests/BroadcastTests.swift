#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// A broadcast address on the client's veth subnet (198.18.0.255), beside iputils ping and
/// fping: refused without -b, pinged with it, answered by the router only while its
/// net.ipv4.icmp_echo_ignore_broadcasts is 0; named in addr's verdict, as a multicast group
/// is; and a prohibit route still called one.
final class BroadcastTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-bcast-" }
    private var net: ChainTopology!

    static let broadcast = "198.18.0.255"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["ping", "fping"])
        net = try ChainTopology(lab: lab)
    }

    /// Without -b: one line and exit 64, nothing on stdout, not one echo sent; iputils
    /// refuses too (exit 2) with the question it asks.
    func testWithoutBroadcastOptionIsRefusedAsIputilsDoes() throws {
        let before = try net.client.icmpCounter("OutEchos")
        let ours = try ReachBinary.run(["ping", "-c", "1", Self.broadcast], in: net.client)
        XCTAssertEqual(ours.status, 64, "\(ours)")
        XCTAssertEqual(ours.stdout, "")
        XCTAssertEqual(ours.stderrLines, ["reach: \(Self.broadcast) is a broadcast address: ping it with -b"])
        XCTAssertEqual(try net.client.icmpCounter("OutEchos"), before, "nothing sent")
        let theirs = try net.client.exec(["ping", "-c", "1", Self.broadcast])
        XCTAssertEqual(theirs.status, 2, "\(theirs)")
        XCTAssertTrue(theirs.stderr.contains("Do you want to ping broadcast? Then -b."), "\(theirs)")
    }

    /// With -b: iputils' warning, and the router's replies while it answers broadcasts (no
    /// "DIFFERENT ADDRESS!", as iputils prints none); none when it ignores them. Status and
    /// line shapes as iputils'.
    func testWithBroadcastOptionAsIputilsWithTheSysctlBothWays() throws {
        for ignores in [0, 1] {
            try net.router.sysctl(["net.ipv4.icmp_echo_ignore_broadcasts=\(ignores)"])
            let arguments = ["-b", "-c", "2", "-i", "0.2", "-W", "1", Self.broadcast]
            let ours = try ReachBinary.run(["ping"] + arguments, in: net.client, timeout: 15)
            let theirs = try net.client.exec(["ping"] + arguments, timeout: 15)
            XCTAssertEqual(ours.status, ignores == 0 ? 0 : 1, "ignore_broadcasts=\(ignores): \(ours)")
            XCTAssertEqual(ours.status, theirs.status, "ignore_broadcasts=\(ignores): \(ours)\n\(theirs)")
            XCTAssertEqual(ours.stderrLines, ["WARNING: pinging broadcast address"], "\(ours)")
            XCTAssertTrue(theirs.stderr.contains("WARNING: pinging broadcast address"), "\(theirs)")
            let replies = ours.stdoutLines.filter { $0.hasPrefix("64 bytes from ") }
            let theirReplies = theirs.stdoutLines.filter { $0.hasPrefix("64 bytes from ") }
            XCTAssertEqual(replies.map(PingTests.shape), theirReplies.map(PingTests.shape))
            XCTAssertEqual(replies.count, ignores == 0 ? 2 : 0, "\(ours)")
            let fromTheRouter = replies.allSatisfy { $0.hasPrefix("64 bytes from 198.18.0.1: icmp_seq=") && !$0.contains("DIFFERENT") }
            XCTAssertTrue(fromTheRouter, "\(ours)")
        }
    }

    /// Several targets: a broadcast address is refused at each send, and the words say why
    /// (fping: "Permission denied"); with -b it answers as a target.
    func testSeveralTargetsNameTheBroadcast() throws {
        try net.router.sysctl(["net.ipv4.icmp_echo_ignore_broadcasts=0"])
        let targets = [Self.broadcast, "198.18.0.1"]
        let ours = try ReachBinary.run(["ping", "-W", "0.3"] + targets, in: net.client, timeout: 15)
        let theirs = try net.client.exec(["fping", "-t", "300"] + targets, timeout: 15)
        XCTAssertEqual(ours.status, 1, "\(ours)")
        XCTAssertEqual(ours.status, theirs.status, "\(theirs)")
        let refusal = "\(Self.broadcast): error while sending ping: Permission denied"
        XCTAssertTrue(theirs.stderrLines.contains(refusal), "\(theirs)")
        XCTAssertTrue(ours.stderrLines.contains(refusal + " (broadcast address: -b pings it)"), "\(ours)")
        let allowed = try ReachBinary.run(["ping", "-b", "-W", "0.3"] + targets, in: net.client, timeout: 15)
        XCTAssertEqual(allowed.status, 0, "\(allowed)")
        XCTAssertEqual(Set(allowed.stdoutLines), ["\(Self.broadcast) is alive", "198.18.0.1 is alive"], "\(allowed)")
    }

    /// addr names a broadcast or multicast destination in its verdict and JSON (the kernel's
    /// route type, as `ip route get` prints it); one host's path has none.
    func testAddrNamesBroadcastAndMulticast() throws {
        let text = try ReachBinary.run(["addr", Self.broadcast, "224.0.0.1", "198.18.0.1"], in: net.client)
        XCTAssertEqual(text.status, 0, "\(text)")
        XCTAssertEqual(text.stdoutLines.count, 3, "\(text)")
        XCTAssertTrue(text.stdoutLines[0].hasPrefix("\(Self.broadcast): reachable (broadcast) via "), "\(text)")
        XCTAssertTrue(text.stdoutLines[1].hasPrefix("224.0.0.1: reachable (multicast) via "), "\(text)")
        XCTAssertTrue(text.stdoutLines[2].hasPrefix("198.18.0.1: reachable via "), "\(text)")
        for (address, delivery, routeType) in [(Self.broadcast, "broadcast", "broadcast"), ("224.0.0.1", "multicast", "multicast")] {
            let json = try ReachJSON.decode(try ReachBinary.run(["addr", address, "--json"], in: net.client))
            XCTAssertEqual(json.paths.first?.delivery, delivery)
            let kernel = try net.client.exec(["ip", "route", "get", address])
            XCTAssertTrue(kernel.stdout.hasPrefix(routeType + " "), "\(kernel)")
        }
        let unicast = try ReachJSON.decode(try ReachBinary.run(["addr", "198.18.0.1", "--json"], in: net.client))
        XCTAssertNil(unicast.paths.first?.delivery)
    }

    /// EACCES is a prohibited route only when the route is one: a prohibit route keeps its
    /// words in text and JSON.
    func testProhibitRouteStillSaysSo() throws {
        _ = try net.client.ip("route", "add", "prohibit", "203.0.113.0/24")
        let text = try ReachBinary.run(["ping", "-c", "1", "203.0.113.1"], in: net.client)
        XCTAssertEqual(text.status, 1, "\(text)")
        XCTAssertTrue(text.stderrLines.contains("reach: icmp_seq=1: sendto: Permission denied (prohibited route)"), "\(text)")
        let json = try ReachBinary.run(["ping", "-c", "1", "--json", "203.0.113.1"], in: net.client)
        let refused = JSONLines.events(json.stdout, "send_failed")
        XCTAssertEqual(refused.first?["reason"] as? String, "prohibited_route", "\(json)")
    }
}

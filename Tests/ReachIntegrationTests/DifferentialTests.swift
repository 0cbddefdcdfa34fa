import Foundation
import XCTest

/// reach against `ip route get` in the same namespace, for every destination in the lab:
/// the same verdict, device, gateway and source; where ip refuses, the reason that errno
/// stands for; where the link has no carrier, not reachable although ip returns the route.
final class DifferentialTests: NamespaceTestCase {
    /// What `ip route get` prints on stderr for each verdict errno, and reach's reason for it.
    static let refusals: [(message: String, reason: String)] = [
        ("Network is unreachable", "no_route"),       // ENETUNREACH: no route, or a throw route
        ("No route to host", "unreachable_route"),    // EHOSTUNREACH
        ("Invalid argument", "blackhole_route"),      // EINVAL
        ("Permission denied", "prohibited_route"),    // EACCES
    ]

    /// Destinations as reach takes them; a zone becomes `oif` for ip.
    static let destinations = [
        "127.0.0.1", "127.1.2.3", "::1", "198.18.0.2", "2001:db8::2", "198.18.0.255",
        "198.18.0.1", "2001:db8::1", "198.18.1.2", "2001:db8:1::2", "198.18.1.77",
        "198.18.2.1", "2001:db8:2::1", "198.18.3.1", "2001:db8:3::1",
        "198.51.100.1", "198.51.100.130", "2001:db8:5::1", "198.51.100.5", "2001:db8:6::1",
        "198.18.9.1", "2001:db8:9::1", "198.18.200.1", "2001:db8:ffff::1", "198.19.255.254",
        "224.0.0.1", "255.255.255.255", "0.0.0.0", "::", "::ffff:198.18.0.1", "ff02::1%v0", "ff02::1%v2", "ff02::1", "239.1.2.3",
    ] + LabTopology.rejectRoutes.flatMap(\.destinations)
        + (1...8).flatMap { ["198.18.20.\($0)", "2001:db8:20::\($0)"] } // multipath: the hash picks v0 or v2

    private var counts: [String: Int] = [:]

    func testReachAgreesWithIPRouteGetEverywhere() throws {
        let net = try LabTopology(lab: lab, defaultRoutes: true, attachTun: true)
        let linkLocal = try net.router.linkLocalAddress(of: "r0")
        let all = Self.destinations + ["\(linkLocal)%v0", "\(linkLocal)%v2", "\(linkLocal)%tun1"]

        try compareAll(all, in: net, stage: "defaults, tun0 attached")

        // Change the network under it: no default routes, v3 admin down, tun0 detached.
        try net.setDefaultRoutes(ipv4: false, ipv6: false)
        try net.client.ip("link", "set", "v3", "down")
        net.tunHolder?.stop()
        try net.client.waitFor(link: "tun0", operstate: "DOWN")
        try compareAll(all, in: net, stage: "no defaults, v3 down, tun0 detached")

        // Every kind of answer was met, so the comparison covered each branch.
        for kind in ["reachable", "no_carrier", "local"] + Self.refusals.map(\.reason) {
            XCTAssertGreaterThan(counts[kind, default: 0], 0, "no destination gave \(kind): \(counts)")
        }
    }

    private func compareAll(_ destinations: [String], in net: LabTopology, stage: String) throws {
        for destination in destinations { try compare(destination, in: net.client, stage: stage) }
        // status evaluates its probe addresses the same way.
        let status = try reachJSON(["status"], in: net.client, status: nil)
        for path in status.paths { try compare(path, target: path.address, zone: nil, in: net.client, stage: "\(stage), status") }
    }

    private func compare(_ destination: String, in namespace: Namespace, stage: String) throws {
        let result = try reach(["addr", destination, "--json"], in: namespace)
        let report = try ReachJSON.decode(result)
        XCTAssertEqual(result.status, report.reachable ? 0 : 1, "\(stage): \(destination) exit status")
        let parts = destination.split(separator: "%").map(String.init)
        let path = try XCTUnwrap(report.paths.first, destination)
        XCTAssertEqual(report.paths.count, 1)
        try compare(path, target: parts[0], zone: parts.count > 1 ? parts[1] : nil, in: namespace, stage: stage)
    }

    private func compare(_ path: ReachJSON.Path, target: String, zone: String?, in namespace: Namespace, stage: String) throws {
        let context = "\(stage): \(path.address)"
        let ip = try namespace.exec(["ip", "-j", "route", "get", target] + (zone.map { ["oif", $0] } ?? []))
        guard ip.status == 0 else {
            let refusal = Self.refusals.first { ip.stderr.contains($0.message) }
            let expected = try XCTUnwrap(refusal, "\(context): an ip answer this test does not know: \(ip)").reason
            XCTAssertEqual(path.reason, expected, "\(context): ip said \(ip.stderr)")
            XCTAssertFalse(path.reachable, context)
            XCTAssertNil(path.link, context)
            XCTAssertNil(path.gateway, context)
            counts[expected, default: 0] += 1
            return
        }
        let answers = try JSONSerialization.jsonObject(with: Data(ip.standardOutput)) as? [[String: Any]]
        let route = try XCTUnwrap(answers?.first, "\(context): \(ip)")
        let device = try XCTUnwrap(route["dev"] as? String, "\(context): \(ip)")
        XCTAssertEqual(path.link?.name, device, "\(context): device")
        XCTAssertEqual(path.gateway, route["gateway"] as? String, "\(context): gateway")
        XCTAssertEqual(path.source, route["prefsrc"] as? String, "\(context): source")
        if route["type"] as? String == "local" {
            XCTAssertTrue(path.flags.contains("IsLocalAddress"), "\(context): local route")
            counts["local", default: 0] += 1
        }
        // ip answers with the route either way; only the link says whether anything passes.
        let link = try namespace.link(device)
        let linkFlags = link["flags"] as? [String] ?? []
        let carrier = linkFlags.contains("UP") && (linkFlags.contains("LOWER_UP") || device == "lo")
        if carrier {
            XCTAssertTrue(path.reachable, "\(context): \(device) has carrier, ip: \(ip.stdout)")
            XCTAssertNil(path.reason, context)
            counts["reachable", default: 0] += 1
        } else {
            XCTAssertFalse(path.reachable, "\(context): \(device) has no carrier (\(linkFlags)) though ip returns the route")
            XCTAssertEqual(path.reason, "no_carrier", context)
            XCTAssertTrue(path.flags.contains("ConnectionRequired"), context)
            counts["no_carrier", default: 0] += 1
        }
    }
}

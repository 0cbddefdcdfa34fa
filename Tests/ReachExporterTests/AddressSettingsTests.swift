import ReachCore
import ReachSystem
import XCTest

@testable import ReachExporter

/// reach's own address keys beside blackbox_exporter's: `source_interface` in every prober,
/// and `preferred_ip_protocol: both`, which leaves no fallback to choose.
final class AddressSettingsTests: XCTestCase {
    private func modules(_ yaml: String) throws -> [ExporterModule] {
        try ExporterConfiguration.parse(yaml, checkingImplemented: false)
    }

    private func error(_ yaml: String) -> String? {
        do {
            _ = try ExporterConfiguration.parse(yaml)
            return nil
        } catch {
            return error.message
        }
    }

    func testSourceInterfaceInEveryProber() throws {
        let module = try XCTUnwrap(modules("""
            modules:
              m:
                prober: tcp
                icmp: {source_interface: up2}
                tcp: {source_interface: up2, source_ip_address: 198.18.11.2}
                http: {source_interface: up2}
                dns: {query_name: a.lab, source_interface: up2}
                grpc: {source_interface: up2}
            """).first)
        let settings = [module.icmp.address, module.tcp.address, module.http.address, module.dns.address, module.grpc.address]
        XCTAssertEqual(settings.map(\.sourceInterface), Array(repeating: "up2", count: 5))
        XCTAssertEqual(module.tcp.address.binding, SocketBinding(address: try IPAddress.parse("198.18.11.2"), interface: "up2"))
        XCTAssertEqual(module.icmp.address.binding, SocketBinding(interface: "up2"))
        XCTAssertEqual(ExporterModule(name: "d", prober: .icmp).icmp.address.binding, .unbound)
        // The debug output prints it in each block, after the source address where a prober has one.
        XCTAssertTrue(module.yaml.contains("tcp:\n    ip_protocol_fallback: true\n    source_ip_address: \"198.18.11.2\"\n"
            + "    source_interface: up2\n"), module.yaml)
        XCTAssertTrue(module.yaml.contains("grpc:\n    ip_protocol_fallback: true\n    source_interface: up2\n"), module.yaml)
        XCTAssertTrue(module.yaml.contains("icmp:\n    ip_protocol_fallback: true\n    source_interface: up2\n    ttl: 64\n"), module.yaml)
    }

    /// The kernel's rule for a name (dev_valid_name in net/core/dev.c), said at load with
    /// the line; a link that does not exist yet is the probe's failure, not the load's.
    func testALinkNameTheKernelCannotGiveIsRefused() throws {
        let refused: [(written: String, named: String)] = [
            ("abcdefghijklmnop", "abcdefghijklmnop"), ("a/b", "a/b"), ("'a b'", "a b"), ("eth0:1", "eth0:1"), ("'.'", "."),
            ("'..'", ".."),
        ]
        for (written, named) in refused {
            XCTAssertEqual(
                error("modules:\n  m:\n    prober: icmp\n    icmp:\n      source_interface: \(written)\n"),
                "line 5: icmp.source_interface: '\(named)' cannot name a link", written)
        }
        let tab = error("modules:\n  m:\n    prober: icmp\n    icmp: {source_interface: \"a\\tb\"}\n")
        XCTAssertEqual(tab?.hasPrefix("line 4: icmp.source_interface: 'a"), true, tab ?? "accepted")
        XCTAssertEqual(tab?.hasSuffix("b' cannot name a link"), true, tab ?? "accepted")
        XCTAssertNil(error("modules:\n  m:\n    prober: icmp\n    icmp: {source_interface: abcdefghijklmno}\n"))
        XCTAssertNil(error("modules:\n  m:\n    prober: icmp\n    icmp: {source_interface: rch-not-here}\n"))
        XCTAssertNil(error("modules:\n  m:\n    prober: icmp\n    icmp: {source_interface: ''}\n"))
    }

    /// A link or an address the kernel refused to bind is the probe's failure, by its reason.
    func testTheLocalEndsRefusalsAreTheirReasons() {
        XCTAssertEqual(ProbeFailureReason.source(.interface(.noDevice)), .sourceInterfaceUnavailable)
        XCTAssertEqual(ProbeFailureReason.source(.address(.addressNotAvailable)), .sourceAddressUnavailable)
        XCTAssertEqual(ProbeFailureReason.connect(TCPProbe.Failure(.interface(.noDevice))), .sourceInterfaceUnavailable)
        XCTAssertEqual(ProbeFailureReason.connect(TCPProbe.Failure(.address(.addressNotAvailable))), .sourceAddressUnavailable)
        XCTAssertEqual(TCPProbe.Failure(.interface(.noDevice)).detail, "cannot send through the interface: \(Errno.noDevice)")
    }

    func testBothDropsTheFallbackAndPrintsAsBoth() throws {
        let module = try XCTUnwrap(modules("modules:\n  m:\n    prober: http\n    http: {preferred_ip_protocol: both}\n").first)
        XCTAssertEqual(module.preferredIPProtocol, .both)
        XCTAssertFalse(module.ipProtocolFallback)
        XCTAssertTrue(
            module.yaml.hasPrefix("prober: http\nhttp:\n    preferred_ip_protocol: both\n    follow_redirects: true\n"), module.yaml)
        let written = try XCTUnwrap(modules("""
            modules:
              m:
                prober: icmp
                icmp: {ip_protocol_fallback: false, preferred_ip_protocol: both}
            """).first)
        XCTAssertEqual(written.preferredIPProtocol, .both)
    }

    /// `both` probes every family at once: a fallback written true beside it is refused,
    /// with the fallback's line, whichever comes first; in any prober's settings.
    func testBothWithAFallbackIsRefusedWithItsLine() {
        XCTAssertEqual(
            error("modules:\n  m:\n    prober: icmp\n    icmp:\n      preferred_ip_protocol: both\n      ip_protocol_fallback: true\n"),
            "line 6: icmp.ip_protocol_fallback: not with preferred_ip_protocol: both, which probes every family at once")
        XCTAssertEqual(
            error("modules:\n  m:\n    prober: tcp\n    dns:\n      ip_protocol_fallback: yes\n      query_name: a.lab\n"
                + "      preferred_ip_protocol: both\n"),
            "line 5: dns.ip_protocol_fallback: not with preferred_ip_protocol: both, which probes every family at once")
        // blackbox_exporter's own values are as before.
        XCTAssertNil(error("modules:\n  m:\n    prober: icmp\n    icmp: {preferred_ip_protocol: ip4, ip_protocol_fallback: true}\n"))
        XCTAssertEqual(
            error("modules:\n  m:\n    prober: grpc\n    grpc: {preferred_ip_protocol: ip5}\n"),
            "line 4: grpc.preferred_ip_protocol: 'ip5' is neither ip4 nor ip6")
    }

    func testHeldToOneFamily() throws {
        var module = try XCTUnwrap(modules("modules:\n  m:\n    prober: tcp\n    tcp: {preferred_ip_protocol: both}\n").first)
        module.holdAddressChoice(to: .ipv4)
        XCTAssertEqual(module.preferredIPProtocol, .ip4)
        XCTAssertFalse(module.ipProtocolFallback)
        var route = ExporterModule(name: "r", prober: .route)
        route.holdAddressChoice(to: .ipv6)
        XCTAssertEqual(route.icmp.address.preferredIPProtocol, .ip6)
        XCTAssertFalse(route.ipProtocolFallback)
    }
}

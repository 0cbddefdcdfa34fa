import ReachCore
import ReachSystem
import XCTest

@testable import ReachExporter

/// reach's own address key beside blackbox_exporter's: `source_interface` in every prober.
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
}

import XCTest
@testable import ReachCore
import ReachSystem

/// The checks every ping run makes, one host or many, on a fake resolver. What a refused
/// capability does is tested for real (PrivilegeTests): here it would drop the test's own.
final class PingSessionTests: XCTestCase {
    /// The options as `reach ping` spells them.
    static let options = PingSession.OptionNames(ipv4: "-4", ipv6: "-6", interval: "-i")

    func testBothFamiliesAreRefusedEitherOneIsKept() {
        XCTAssertThrowsError(try PingSession(ipv4: true, ipv6: true, options: Self.options).family()) { error in
            XCTAssertEqual(error as? PingSession.Refusal, PingSession.Refusal(kind: .badInput, description: "-4 and -6 cannot be combined"))
        }
        XCTAssertEqual(try PingSession(ipv4: true, ipv6: false, options: Self.options).family(), .ipv4)
        XCTAssertEqual(try PingSession(ipv4: false, ipv6: true, options: Self.options).family(), .ipv6)
        XCTAssertNil(try PingSession(ipv4: false, ipv6: false, options: Self.options).family())
    }

    func testTargetsAreCheckedBeforeAnythingIsResolved() throws {
        let resolver = FakeResolver([:])
        let session = PingSession(ipv4: true, ipv6: false, options: Self.options, resolver: resolver)
        XCTAssertEqual(try session.literals(["198.51.100.7", "db.test"]), [address("198.51.100.7"), nil])
        XCTAssertThrowsError(try session.literals(["db.test", "2001:db8::1"])) { error in
            XCTAssertEqual("\(error)", "2001:db8::1 is not an IPv4 address")
        }
        XCTAssertThrowsError(try session.literals(["bad name"])) { error in
            XCTAssertEqual(error as? TargetText.Fault, .invalidHostName("bad name", reason: "host name contains a space"))
        }
        XCTAssertThrowsError(try session.literals(["198.51.100.7%lo"])) { error in
            XCTAssertEqual(error as? TargetText.Fault, .zoneOnIPv4("198.51.100.7%lo"))
        }
        XCTAssertThrowsError(try session.resolve("fe80::1%no-such-link0")) { error in
            XCTAssertEqual(error as? TargetText.Fault, .unknownZone("no-such-link0", in: "fe80::1%no-such-link0"))
        }
        XCTAssertTrue(resolver.requests.isEmpty, "nothing resolved for a target refused")
    }

    func testOneHostIsItsFirstAddressWithinTheBound() throws {
        let resolver = FakeResolver([
            "db.test": .resolved([address("198.51.100.7"), address("198.51.100.8")]),
            "v6.test": .resolved([address("2001:db8::7")]),
        ])
        let session = PingSession(ipv4: true, ipv6: false, options: Self.options, resolver: resolver)
        XCTAssertEqual(try session.resolve("db.test"), .address(address("198.51.100.7")))
        XCTAssertEqual(try session.resolve("gone.test"), .unresolved(why: "Name or service not known"))
        XCTAssertThrowsError(try session.resolve("v6.test")) { error in
            XCTAssertEqual(error as? FamilyMismatch, FamilyMismatch(target: "v6.test", required: .ipv4))
        }
        XCTAssertEqual(resolver.requests.map(\.timeout), Array(repeating: PingSession.resolveTimeout, count: 3))
        XCTAssertEqual(resolver.requests.map(\.family), [.ipv4, .ipv4, .ipv4])
    }

    func testManyTargetsKeepTheirOrderAndOnlyNamesAreResolved() throws {
        let resolver = FakeResolver(["db.test": .resolved([address("198.51.100.7")])])
        let session = PingSession(ipv4: false, ipv6: false, options: Self.options, resolver: resolver)
        let texts = ["gone.test", "203.0.113.1", "db.test"]
        let resolutions = try session.resolve(texts, literals: try session.literals(texts))
        XCTAssertEqual(
            resolutions,
            [.unresolved(why: "Name or service not known"), .address(address("203.0.113.1")), .address(address("198.51.100.7"))])
        XCTAssertEqual(resolver.requests.map(\.name), ["gone.test", "db.test"])
    }

    /// A transport that fails as a socket that stopped working would.
    private final class BrokenTransport: PingTransport {
        func identifier(for family: AddressFamily) -> UInt16 { 1 }
        func kind(for family: AddressFamily) -> ICMPSocketKind? { .datagram }
        func send(_ packet: [UInt8], to target: IPAddress, beforeSend: () -> Void) throws -> Errno? {
            throw SystemCallError("sendto", .invalidArgument)
        }
        func wait(until deadline: MonotonicInstant?, _ deliver: (AddressFamily, TransportInput) -> Void) throws {}
        func interrupt() {}
    }

    func testASystemFailureEndsTheRunWithItsOneLine() {
        let session = PingSession(ipv4: false, ipv6: false, options: Self.options)
        var loop = PingLoop(
            engine: PingEngine(target: address("198.51.100.7"), identifier: 1, configuration: PingConfiguration(count: 1)),
            transport: BrokenTransport(), clock: ManualClock())
        var events = 0
        let failure = session.run(&loop) { _, _ in events += 1 }
        XCTAssertEqual(failure, "system failure: \(SystemCallError("sendto", .invalidArgument))")
        XCTAssertEqual(events, 0)
    }
}

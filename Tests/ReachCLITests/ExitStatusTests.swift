import XCTest

@testable import ReachCLI
import ReachCommandLine
import ReachSystem
@testable import ReachCore

/// The one exit-status mapping: every kind of error lands on its documented code.
final class ExitStatusTests: XCTestCase {
    private struct Unforeseen: Error {}

    func testEachErrorKindMapsToItsCode() {
        let cases: [(error: Error, status: ExitStatus, mentions: String)] = [
            (UsageError("invalid IP address 'x'"), .usage, "invalid IP address"),
            (PermissionError("no ICMP permission"), .notPermitted, "ICMP"),
            (SystemCallError("socket", .addressFamilyNotSupported), .systemFailure, "socket"),
            (NetlinkRequestError(request: "RTM_GETLINK", errno: .notPermitted), .systemFailure, "RTM_GETLINK"),
            (ParseError(offset: 4, "truncated"), .systemFailure, "offset 4"),
            // Not the user's fault: an error nothing above names is a failure, never 64.
            (Unforeseen(), .systemFailure, "system failure"),
        ]
        for (error, status, mentions) in cases {
            let (mapped, message) = ExitStatus.of(error)
            XCTAssertEqual(mapped, status, "\(error)")
            XCTAssertTrue(message.contains(mentions), "\(error): \(message)")
            XCTAssertFalse(message.contains("\n"), "one line: \(message)")
        }
    }

    func testReportsMapToTheirVerdicts() throws {
        let loopback = try XCTUnwrap(IPAddress(family: .ipv4, bytes: [127, 0, 0, 1]))
        let reachable = PathReport(destination: loopback, flags: [.reachable], reason: nil)
        let noRoute = PathReport(destination: loopback, flags: [], reason: .noRoute)
        XCTAssertEqual(ExitStatus.of(ReachabilityReport(subject: .address(loopback), paths: [reachable])), .success)
        XCTAssertEqual(ExitStatus.of(ReachabilityReport(subject: .address(loopback), paths: [noRoute])), .notReachable)
        let unresolved = ReachabilityReport(subject: .host("nosuch.test"), paths: [], resolutionFailure: "Name or service not known")
        XCTAssertEqual(ExitStatus.of(unresolved), .nameNotResolved)
    }

    /// Several targets: 0 when all are reachable (with --any, when one is); otherwise 2 when a
    /// name did not resolve, else 1.
    func testSeveralReportsMapToTheTable() throws {
        let loopback = try XCTUnwrap(IPAddress(family: .ipv4, bytes: [127, 0, 0, 1]))
        let reachable = PathReport(destination: loopback, flags: [.reachable], reason: nil)
        let good = ReachabilityReport(subject: .address(loopback), paths: [reachable])
        let bad = ReachabilityReport(subject: .address(loopback), paths: [PathReport(destination: loopback, flags: [], reason: .noRoute)])
        let unresolved = ReachabilityReport(subject: .host("nosuch.test"), paths: [], resolutionFailure: "Name or service not known")
        let table: [([ReachabilityReport], all: ExitStatus, any: ExitStatus)] = [
            ([good, good], .success, .success),
            ([good, bad], .notReachable, .success),
            ([good, unresolved], .nameNotResolved, .success),
            ([bad, unresolved, good], .nameNotResolved, .success),
            ([bad, bad], .notReachable, .notReachable),
            ([bad, unresolved], .nameNotResolved, .nameNotResolved),
        ]
        for (reports, all, any) in table {
            XCTAssertEqual(ExitStatus.of(reports, any: false), all)
            XCTAssertEqual(ExitStatus.of(reports, any: true), any)
        }
    }
}

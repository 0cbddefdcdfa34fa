import XCTest
@testable import ReachCore
import ReachSystem

final class ConnectivityStateTests: XCTestCase {
    private func result(_ outcome: ProbeResult.Outcome, _ spec: ProbeSpec = .tcp(host: "198.18.1.2", port: 443)) -> ProbeResult {
        ProbeResult(spec: spec, outcome: outcome, elapsed: .milliseconds(1), detail: "")
    }

    func testDecisionOrder() {
        XCTAssertEqual(ConnectivityState.decide(routeUsable: false, results: [result(.passed)]), .none)
        XCTAssertEqual(ConnectivityState.decide(routeUsable: true, results: [result(.failed), result(.failed)]), .limited)
        XCTAssertEqual(ConnectivityState.decide(routeUsable: true, results: [result(.failed), result(.passed)]), .full)
        // A portal beats a passing ICMP or TCP probe, as NetworkManager decides it.
        XCTAssertEqual(ConnectivityState.decide(routeUsable: true, results: [result(.passed, .icmp(host: "h")), result(.portal)]), .portal)
    }

    func testHTTPClassification() {
        let plain = NetworkProbeRunner()
        let expecting = NetworkProbeRunner(expectedText: "Success")
        func response(_ code: Int, body: String = "", headers: [(String, String)] = []) -> HTTPResponse {
            HTTPResponse(statusCode: code, headers: headers.map { (name: $0.0, value: $0.1) }, body: Array(body.utf8))
        }
        XCTAssertEqual(plain.classify(response(204)).0, .passed)
        XCTAssertEqual(plain.classify(response(200, body: "Success")).0, .portal)
        XCTAssertEqual(expecting.classify(response(200, body: "<html>Success</html>")).0, .passed)
        XCTAssertEqual(expecting.classify(response(200, body: "<html>Log in</html>")).0, .portal)
        let redirect = plain.classify(response(302, headers: [("Location", "http://198.18.0.2:8080/login")]))
        XCTAssertEqual(redirect.0, .portal)
        XCTAssertEqual(redirect.1, "http probe redirected to http://198.18.0.2:8080/login")
        XCTAssertEqual(redirect.2, "http://198.18.0.2:8080/login")
        XCTAssertEqual(plain.classify(response(511)).0, .portal)
        XCTAssertEqual(plain.classify(response(404)).1, "HTTP 404")
    }

    func testPortalSetsInterventionRequiredOnReachablePaths() throws {
        let reachable = PathReport(destination: try IPAddress.parse("8.8.8.8"), flags: [.reachable], reason: nil)
        let unreachable = PathReport(destination: try IPAddress.parse("::1"), flags: [], reason: .noRoute)
        var report = ReachabilityReport(subject: .internet, paths: [reachable, unreachable])
        report.attach(ConnectivityReport(state: .portal, probes: [result(.portal)]))
        XCTAssertTrue(report.paths[0].flags.contains(.interventionRequired))
        XCTAssertFalse(report.paths[1].flags.contains(.interventionRequired))
        XCTAssertEqual(report.connectivity?.state, .portal)
    }

    func testCheckerSendsNothingWithoutARoute() throws {
        // @unchecked: `runs` is written on the probe's thread and read after the checker waited for it.
        final class CountingRunner: ProbeRunner, @unchecked Sendable {
            var runs = 0
            func run(_ spec: ProbeSpec, deadline: MonotonicInstant) -> ProbeResult {
                runs += 1
                return ProbeResult(spec: spec, outcome: .passed, elapsed: .zero, detail: "")
            }
        }
        let runner = CountingRunner()
        let checker = ConnectivityChecker(specs: [.icmp(host: "198.18.1.2")], timeout: .milliseconds(1000), runner: runner)
        XCTAssertEqual(try checker.check(routeUsable: false), ConnectivityReport(state: .none, probes: []))
        XCTAssertEqual(runner.runs, 0)
        XCTAssertEqual(try checker.check(routeUsable: true).state, .full)
        XCTAssertEqual(runner.runs, 1)
    }

    func testAProbeThatCannotRunIsAnErrorNotAVerdict() {
        struct DeniedRunner: ProbeRunner {
            func run(_ spec: ProbeSpec, deadline: MonotonicInstant) throws -> ProbeResult {
                throw SystemCallError("socket", .permissionDenied)
            }
        }
        let checker = ConnectivityChecker(specs: [.icmp(host: "198.18.1.2")], timeout: .milliseconds(1000), runner: DeniedRunner())
        XCTAssertThrowsError(try checker.check(routeUsable: true)) { error in
            XCTAssertEqual(error as? SystemCallError, SystemCallError("socket", .permissionDenied))
        }
    }

    func testCheckerCountsAStuckProbeAsTimedOut() throws {
        struct StuckRunner: ProbeRunner {
            func run(_ spec: ProbeSpec, deadline: MonotonicInstant) -> ProbeResult {
                usleep(2_000_000) // ignores its deadline, as a blocked getaddrinfo would
                return ProbeResult(spec: spec, outcome: .passed, elapsed: .zero, detail: "")
            }
        }
        let checker = ConnectivityChecker(specs: [.tcp(host: "h", port: 1)], timeout: .milliseconds(100), runner: StuckRunner())
        let report = try checker.check(routeUsable: true)
        XCTAssertEqual(report.state, .limited)
        XCTAssertEqual(report.probes.first?.detail, "timed out")
    }
}

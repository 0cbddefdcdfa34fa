import Foundation
import XCTest

@testable import ReachCLI
import ReachSystem
@testable import ReachCore

/// `watch --probe` lines: the connectivity is a line of its own, printed when its state changes.
final class WatchRendererTests: XCTestCase {
    private let renderer = WatchRenderer(report: ReportRenderer(showsFlags: false))
    private let time = RealtimeInstant(nanoseconds: 1_795_000_000_000 * 1_000_000)
    private let stamp = "2026-11-18T11:06:40.000Z"

    private func report(gateway: String = "198.18.0.1", _ state: ConnectivityState, detail: String) throws -> ReachabilityReport {
        let path = PathReport(
            destination: try IPAddress.parse("8.8.8.8"), flags: [.reachable], reason: nil,
            link: LinkReport(name: "v0", index: 2, kind: .virtual, operState: .up),
            gateway: try IPAddress.parse(gateway), source: try IPAddress.parse("198.18.0.2"))
        var report = ReachabilityReport(subject: .internet, paths: [path])
        let outcome: ProbeResult.Outcome = state == .full ? .passed : state == .portal ? .portal : .failed
        report.attach(ConnectivityReport(state: state, probes: [
            ProbeResult(spec: .icmp(host: "198.51.100.2"), outcome: outcome, elapsed: .nanoseconds(1_500_000), detail: detail),
        ]))
        return report
    }

    func testTheInitialStateEndsWithItsConnectivityLine() throws {
        let event = WatchEvent(kind: .initial, time: time, current: try report(.full, detail: "echo reply"), previous: nil)
        XCTAssertEqual(renderer.text(event), """
            \(stamp)  IPv4: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2
            \(stamp)  connectivity: full (echo reply)

            """)
    }

    func testAChangeOfConnectivityAlonePrintsOneLineWithWhatItWas() throws {
        let event = WatchEvent(kind: .change, time: time, current: try report(.limited, detail: "timed out"),
                               previous: try report(.full, detail: "echo reply"))
        XCTAssertEqual(renderer.text(event), "\(stamp)  connectivity: limited (timed out)   was: full (echo reply)\n")
    }

    func testAPathChangeWithTheSameConnectivityPrintsOnlyThePath() throws {
        let event = WatchEvent(kind: .change, time: time, current: try report(gateway: "198.18.0.9", .full, detail: "echo reply"),
                               previous: try report(.full, detail: "another reply"))
        XCTAssertEqual(renderer.text(event), "\(stamp)  IPv4: reachable via virtual v0, gateway 198.18.0.9, source 198.18.0.2"
                       + "   was: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2\n")
    }

    func testTheJSONEventCarriesConnectivityAndProbes() throws {
        let event = WatchEvent(kind: .change, time: time, current: try report(.portal, detail: "http probe redirected"),
                               previous: try report(.full, detail: "echo reply"))
        let text = renderer.json(event).serialized()
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let current = try XCTUnwrap(object["current"] as? [String: Any])
        XCTAssertEqual(current["connectivity"] as? String, "portal")
        XCTAssertEqual((current["probes"] as? [[String: Any]])?.first?["result"] as? String, "portal")
        XCTAssertEqual((object["previous"] as? [String: Any])?["connectivity"] as? String, "full")
    }
}

import Foundation
import XCTest

/// `--percentiles` and the JSON summary's `percentiles`, on the ping suites' chain (client,
/// router, far end): estimated from the run's histogram within 0.27 % of the replies' own
/// percentiles, held within min..max, and printed as iputils prints its figures.
extension PingTests {
    func testPercentilesLineAndJSONSummary() throws {
        let net = try ChainTopology(lab: lab)
        for target in ["198.18.1.2", "2001:db8:1::2"] {
            let text = try ping(["-c", "20", "-i", "0.02", "--percentiles", target], in: net.client)
            XCTAssertEqual(text.status, 0, "\(text)")
            let lines = text.stdoutLines
            let statistics = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("rtt min/avg/max/mdev = ") }, "\(text)")
            XCTAssertEqual(lines.count, statistics + 2, "one more line, the last: \(text)")
            let minAvgMaxMdev = Self.figures(lines[statistics], after: "rtt min/avg/max/mdev = ")
            let percentiles = Self.figures(lines.last ?? "", after: "rtt p50/p90/p99 = ")
            XCTAssertEqual(percentiles.count, 3, "\(text)")
            XCTAssertEqual(percentiles, percentiles.sorted(), "\(text)")
            XCTAssertGreaterThanOrEqual(percentiles.first ?? 0, minAvgMaxMdev.first ?? .infinity, "\(text)")
            XCTAssertLessThanOrEqual(percentiles.last ?? .infinity, minAvgMaxMdev[2], "\(text)")
            XCTAssertEqual(Self.shape(lines.last ?? ""), "rtt pN/pN/pN = N/N/N ms")

            let json = try ping(["-c", "20", "-i", "0.02", "--json", target], in: net.client)
            XCTAssertEqual(json.status, 0, "\(json)")
            let replies = events(json, "reply").compactMap { $0["rtt_ms"] as? Double }.sorted()
            XCTAssertEqual(replies.count, 20, "\(json)")
            let summary = try XCTUnwrap(events(json, "summary").first)
            let rtt = try XCTUnwrap(summary["rtt_ms"] as? [String: Any])
            let estimates = try XCTUnwrap(rtt["percentiles"] as? [String: Double], "\(summary)")
            XCTAssertEqual(Set(estimates.keys), ["p50", "p90", "p99"])
            for (key, q) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] {
                // The observation of rank ⌈q·n⌉; each reply's time is truncated to the
                // microsecond and each estimate rounded to it, hence the microsecond beside the 0.27 %.
                let truth = replies[Int((q * Double(replies.count)).rounded(.up)) - 1]
                let estimate = try XCTUnwrap(estimates[key])
                XCTAssertEqual(estimate, truth, accuracy: truth * 0.0028 + 0.001, "\(key) of \(replies)")
                XCTAssertTrue(JSONLines.isWholeMicroseconds(estimate), "\(key) \(estimate)")
                XCTAssertGreaterThanOrEqual(estimate, try XCTUnwrap(rtt["min"] as? Double))
                XCTAssertLessThanOrEqual(estimate, try XCTUnwrap(rtt["max"] as? Double))
            }
        }
    }

    /// The numbers of a statistics line after its label: "rtt ... = a/b/c ms" gives [a, b, c].
    static func figures(_ line: String, after label: String) -> [Double] {
        guard line.hasPrefix(label) else { return [] }
        return line.dropFirst(label.count).split(separator: " ").first?.split(separator: "/").compactMap { Double($0) } ?? []
    }
}

import Foundation
import XCTest

/// `--percentiles` with several targets: fping's summary line of each target that answered
/// ends with its p50/p90/p99 in fping's number format; the JSON summaries have them always.
extension FanoutPingTests {
    func testPercentilesInTheSummaries() throws {
        let targets = [Self.answering, Self.silent, Self.answering6]
        let text = try ReachBinary.run(["ping", "-c", "4", "-q", "--period", "0.2", "--percentiles"] + targets, in: net.client)
        XCTAssertEqual(text.status, 1, "\(text)")
        XCTAssertEqual(text.stderrLines.count, 3, "\(text)")
        for (line, target) in zip(text.stderrLines, targets) where target != Self.silent {
            let parts = line.components(separatedBy: ", p50/p90/p99 = ")
            XCTAssertEqual(parts.count, 2, line)
            XCTAssertTrue(parts[0].contains("min/avg/max = "), line)
            let minAvgMax = parts[0].components(separatedBy: "min/avg/max = ").last?.split(separator: "/").compactMap { Double($0) } ?? []
            let percentiles = parts[1].split(separator: "/").compactMap { Double($0) }
            XCTAssertEqual(percentiles.count, 3, line)
            XCTAssertEqual(percentiles, percentiles.sorted(), line)
            // fping's three significant digits round, so the bounds hold to its last digit.
            XCTAssertGreaterThanOrEqual((percentiles.first ?? 0) * 1.01, minAvgMax.first ?? .infinity, line)
            XCTAssertLessThanOrEqual(percentiles.last ?? .infinity, (minAvgMax.last ?? 0) * 1.01, line)
        }
        XCTAssertEqual(text.stderrLines[1], "\(Self.silent.padding(toLength: 13, withPad: " ", startingAt: 0)) : xmt/rcv/%loss = 4/0/100%")

        let json = try ReachBinary.run(["ping", "-c", "4", "--json", "--period", "0.2"] + targets, in: net.client)
        let summaries = JSONLines.events(json.stdout, "summary")
        XCTAssertEqual(summaries.count, 3, "\(json)")
        for summary in summaries {
            guard summary["target"] as? String != Self.silent else {
                XCTAssertTrue(summary["rtt_ms"] is NSNull, "\(summary)")
                continue
            }
            let rtt = try XCTUnwrap(summary["rtt_ms"] as? [String: Any], "\(summary)")
            let estimates = try XCTUnwrap(rtt["percentiles"] as? [String: Double], "\(summary)")
            let (minimum, maximum) = (try XCTUnwrap(rtt["min"] as? Double), try XCTUnwrap(rtt["max"] as? Double))
            for key in ["p50", "p90", "p99"] {
                let estimate = try XCTUnwrap(estimates[key], "\(summary)")
                XCTAssertTrue((minimum...maximum).contains(estimate), "\(key) \(estimate) outside \(minimum)...\(maximum)")
                XCTAssertTrue(JSONLines.isWholeMicroseconds(estimate))
            }
        }
    }
}

import XCTest
@testable import ReachCore
import ReachSystem

/// mtr 0.95's per-hop arithmetic (ui/net.c net_process_ping, net_loss, net_stdev): whole
/// microseconds, each running sum truncated as mtr's int and long long truncate it.
final class TraceHopStatisticsTests: XCTestCase {
    private let router = try! IPAddress.parse("198.18.1.1")

    private func answer(
        _ statistics: inout TraceHopStatistics, from responder: IPAddress, _ microseconds: Int64, type: UInt8 = 11,
        endsTrace: Bool = false
    ) {
        statistics.record(
            responder: responder, roundTrip: .nanoseconds(microseconds * 1000), icmpType: type, icmpCode: 0, extensions: [],
            endsTrace: endsTrace)
    }

    private func hop(_ microseconds: [Int64], sent: Int? = nil) -> TraceHopStatistics {
        var statistics = TraceHopStatistics(hop: 1)
        for _ in 0..<(sent ?? microseconds.count) { statistics.recordSent() }
        for value in microseconds {
            statistics.record(
                responder: router, roundTrip: .nanoseconds(value * 1000), icmpType: 11, icmpCode: 0, extensions: [], endsTrace: false)
        }
        return statistics
    }

    func testSampleStandardDeviationAsMtrComputesIt() {
        // 1, 2, 3, 4 ms: mean 2.5 ms, sum of squared differences 5 ms², over n - 1 = 3.
        let statistics = hop([1000, 2000, 3000, 4000])
        XCTAssertEqual(statistics.averageMicroseconds, 2500)
        XCTAssertEqual(statistics.squaredDifferences, 5_000_000)
        XCTAssertEqual(statistics.standardDeviationMicroseconds, 1290, "sqrt(5e6 / 3) = 1290.99, truncated")
        XCTAssertEqual(statistics.bestMicroseconds, 1000)
        XCTAssertEqual(statistics.worstMicroseconds, 4000)
        XCTAssertEqual(statistics.lastMicroseconds, 4000)
    }

    func testTheAverageIsTruncatedAtEachStepAsMtrsInt() {
        // 1 then 2 µs: avg = (int)(1 + 1 / 2.0) = 1, not 1.5; ssd = 1 × (2 − 1).
        let rising = hop([1, 2])
        XCTAssertEqual(rising.averageMicroseconds, 1)
        XCTAssertEqual(rising.squaredDifferences, 1)
        // 3 then 0 µs: the sum 3 − 1.5 is truncated (1), not the step (−1).
        let falling = hop([3, 0])
        XCTAssertEqual(falling.averageMicroseconds, 1)
        XCTAssertEqual(falling.squaredDifferences, 3)
        XCTAssertEqual(falling.standardDeviationMicroseconds, 1)
    }

    func testOneAnswerHasNoDeviation() {
        XCTAssertEqual(hop([700]).standardDeviationMicroseconds, 0)
        XCTAssertEqual(hop([]).standardDeviationMicroseconds, 0)
    }

    func testLossInThousandthsOfAPercent() {
        XCTAssertEqual(hop([1, 1, 1, 1, 1, 1, 1], sent: 10).lossThousandths, 30_000)
        XCTAssertEqual(hop([1], sent: 3).lossThousandths, 66_666, "1000 × (100 − 33.33...), truncated")
        XCTAssertEqual(hop([], sent: 4).lossThousandths, 100_000)
        XCTAssertEqual(hop([]).lossThousandths, 0, "nothing sent, nothing lost")
    }

    func testKeepsEveryResponderAndTheLatest() throws {
        var statistics = hop([100])
        let other = try IPAddress.parse("198.18.2.1")
        answer(&statistics, from: other, 200, type: 3)
        answer(&statistics, from: router, 300, type: 11)
        XCTAssertEqual(statistics.responders, [router, other])
        XCTAssertEqual(statistics.latest, router)
        XCTAssertEqual(statistics.icmpType, 11)
    }

    func testListsHopsAsMtrDoes() throws {
        let destination = try IPAddress.parse("198.18.9.9")
        var report = TraceReport(destination: destination)
        for hop in 1...6 { report[hop].recordSent() }
        answer(&report[1], from: router, 100, type: 11, endsTrace: false)
        answer(&report[3], from: router, 100, type: 11, endsTrace: false)
        // Hops 4 to 6 silent: one past the last that answered (net_max), hop 4 as ???.
        XCTAssertEqual(report.listedHops.map(\.hop), [1, 2, 3, 4])
        XCTAssertFalse(report.reachedDestination)
        answer(&report[5], from: destination, 100, type: 3, endsTrace: false)
        XCTAssertEqual(report.listedHops.map(\.hop), [1, 2, 3, 4, 5])
        XCTAssertTrue(report.reachedDestination)
        // An error that ends the trace ends the list at its hop.
        answer(&report[2], from: router, 100, type: 3, endsTrace: true)
        XCTAssertEqual(report.listedHops.map(\.hop), [1, 2])
    }
}

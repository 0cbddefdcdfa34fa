import XCTest
@testable import ReachCore
import ReachSystem

final class PingStatisticsTests: XCTestCase {
    private func statistics(_ micros: [Int64], transmitted: Int) -> PingStatistics {
        var stats = PingStatistics()
        stats.transmitted = transmitted
        for micro in micros {
            stats.received += 1
            stats.record(roundTrip: .nanoseconds(micro * 1000 + 999)) // truncated to whole µs, as iputils
        }
        return stats
    }

    func testIputilsExampleFromTheReference() {
        // iputils ping (ping/ping_common.c finish): 0.061/0.175/0.401/0.159 ms for replies of 401, 61 and 63 µs.
        let stats = statistics([401, 61, 63], transmitted: 3)
        XCTAssertEqual(stats.minimumMicroseconds, 61)
        XCTAssertEqual(stats.averageMicroseconds, 175)
        XCTAssertEqual(stats.maximumMicroseconds, 401)
        // (168491 - 525² / 3) / 3 = 25538 (integers, iputils' order); √ → 159.
        XCTAssertEqual(stats.mdevMicroseconds, 159)
    }

    func testSingleReplyHasZeroDeviation() {
        XCTAssertEqual(statistics([31], transmitted: 1).mdevMicroseconds, 0)
    }

    func testLargeSumsUseTheOtherOrder() {
        // Sums above INT_MAX µs take iputils' second formula: tsum2/n - avg².
        let stats = statistics([3_000_000_000, 1_000_000_000], transmitted: 2)
        XCTAssertEqual(stats.averageMicroseconds, 2_000_000_000)
        XCTAssertEqual(stats.mdevMicroseconds, 1_000_000_000)
    }

    func testLossAsFloat() {
        XCTAssertEqual(statistics([1, 1], transmitted: 3).lossPercent, Double(Float(100.0 / 3)))
        XCTAssertEqual(statistics([], transmitted: 4).lossPercent, 100)
        XCTAssertEqual(PingStatistics().lossPercent, 0)
    }

    func testIntegerSquareRootMatchesLlsqrt() {
        // iputils llsqrt returns the Newton step that stopped decreasing: one above the floor
        // just below a perfect square (3 -> 2, 15 -> 4, 24 -> 5). Values from running its loop.
        let expected: [(Int64, Int64)] = [
            (0, 0), (1, 1), (2, 1), (3, 2), (4, 2), (15, 4), (16, 4), (17, 4), (24, 5),
            (25538, 159), (1 << 40, 1 << 20),
        ]
        for (value, root) in expected {
            XCTAssertEqual(PingStatistics.integerSquareRoot(value), root, "llsqrt(\(value))")
        }
    }

    func testEwmaAsIputils() {
        var stats = PingStatistics()
        stats.record(roundTrip: .nanoseconds(800_000))
        XCTAssertEqual(stats.ewmaTimesEight, 6400)
        stats.record(roundTrip: .nanoseconds(0))
        XCTAssertEqual(stats.ewmaTimesEight, 6400 - 800)
    }
}

import XCTest
@testable import ReachCore
import ReachSystem

final class EvaluationPacerTests: XCTestCase {
    func instant(_ milliseconds: Int64) -> WatchInstant {
        WatchInstant(monotonic: .ms(milliseconds), wall: RealtimeInstant(nanoseconds: (milliseconds + 1_000_000) * 1_000_000))
    }

    func testTheFirstChangeAfterQuietIsEvaluatedAtOnce() {
        var pacer = EvaluationPacer(holdoff: TimeSpan(milliseconds: 5))
        XCTAssertNil(pacer.nextDeadline, "idle: no timer")
        XCTAssertTrue(pacer.changeSeen(at: instant(100)))
        XCTAssertEqual(pacer.evaluated(at: .ms(100)), instant(100))
        XCTAssertNil(pacer.nextDeadline)
        XCTAssertTrue(pacer.changeSeen(at: instant(200)), "long after the last evaluation")
    }

    func testABurstCostsOneEvaluationPerHoldoffAndEndsWithOneAfterTheLastMessage() {
        var pacer = EvaluationPacer(holdoff: TimeSpan(milliseconds: 5))
        var evaluations: [Int64] = []
        // A message every 0.1 ms for 100 ms (a millisecond clock sees ten per tick).
        for tick in 0..<1000 {
            let now = Int64(1000 + tick / 10)
            if pacer.isDue(at: .ms(now)) || pacer.changeSeen(at: instant(now)) {
                _ = pacer.evaluated(at: .ms(now))
                evaluations.append(now)
            }
        }
        XCTAssertEqual(pacer.nextDeadline, .ms(1100))
        XCTAssertFalse(pacer.isDue(at: .ms(1099)))
        XCTAssertTrue(pacer.isDue(at: .ms(1100)))
        XCTAssertEqual(pacer.evaluated(at: .ms(1100)), instant(1095), "the held-back change's first sighting")
        evaluations.append(1100)
        XCTAssertEqual(evaluations.count, 21, "\(evaluations)")
        XCTAssertNil(pacer.nextDeadline)
    }
}

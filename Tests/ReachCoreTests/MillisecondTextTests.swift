import Foundation
import XCTest

@testable import ReachCore

final class MillisecondTextTests: XCTestCase {
    /// The one "%ld.%03ld" (iputils ping_common.c prints its statistics so): microseconds as
    /// milliseconds with three decimals, as printf writes them.
    func testThreeDecimalsAreWhatPrintfWrites() {
        for micro: Int64 in [0, 1, 9, 10, 99, 100, 401, 999, 1000, 1001, 12_345, 999_999, 1_000_000, 86_400_000_000] {
            let printf = String(format: "%ld.%03ld", micro / 1000, micro % 1000)
            XCTAssertEqual(MillisecondText.threeDecimals(microseconds: micro), printf, "\(micro)")
        }
    }

    func testAClockStepBackPrintsAsZero() {
        XCTAssertEqual(MillisecondText.threeDecimals(microseconds: -401), "0.000")
    }
}

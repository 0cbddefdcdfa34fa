import TestSupport
import XCTest

/// CI is on for any value of `CI` but empty, `false` or `0`: `CI=1` must not skip a test.
final class ContinuousIntegrationTests: XCTestCase {
    func testEveryValueButEmptyFalseAndZeroIsOn() {
        for value in ["true", "1", "yes", "TRUE", "github"] {
            XCTAssertTrue(ContinuousIntegration.isOn(value: value), value)
        }
        for value in [nil, "", "false", "0", "False"] as [String?] {
            XCTAssertFalse(ContinuousIntegration.isOn(value: value), String(describing: value))
        }
    }
}

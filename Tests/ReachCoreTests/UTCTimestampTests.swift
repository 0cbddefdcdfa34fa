import XCTest
@testable import ReachCore
import ReachSystem

final class UTCTimestampTests: XCTestCase {
    func testFormatsMillisecondsAsISO8601UTC() {
        XCTAssertEqual(UTCTimestamp.iso8601(millisecondsSinceEpoch: 0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(UTCTimestamp.iso8601(millisecondsSinceEpoch: 1_795_325_401_120), "2026-11-22T05:30:01.120Z")
        XCTAssertEqual(UTCTimestamp.iso8601(millisecondsSinceEpoch: 951_782_400_007), "2000-02-29T00:00:00.007Z")
        XCTAssertEqual(UTCTimestamp.iso8601(millisecondsSinceEpoch: -1), "1969-12-31T23:59:59.999Z")
    }

    func testAgreesWithFoundationOverManyDays() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var milliseconds: Int64 = 0
        for _ in 0..<2000 {
            milliseconds += 86_400_000 * 17 + 3_723_456
            let expected = formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            XCTAssertEqual(UTCTimestamp.iso8601(millisecondsSinceEpoch: milliseconds), expected)
        }
    }
}

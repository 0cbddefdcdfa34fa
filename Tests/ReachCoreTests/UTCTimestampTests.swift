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

    /// RFC 9110, 5.6.7's example in its three forms, as Go's http.ParseTime reads them.
    func testReadsHTTPDatesAsGoDoes() {
        XCTAssertEqual(UTCTimestamp.secondsSinceEpoch(httpDate: "Sun, 06 Nov 1994 08:49:37 GMT"), 784_111_777)
        XCTAssertEqual(UTCTimestamp.secondsSinceEpoch(httpDate: "Sunday, 06-Nov-94 08:49:37 GMT"), 784_111_777)
        XCTAssertEqual(UTCTimestamp.secondsSinceEpoch(httpDate: "Sun Nov  6 08:49:37 1994"), 784_111_777)
        XCTAssertEqual(UTCTimestamp.secondsSinceEpoch(httpDate: "Tue, 29 Feb 2000 23:59:59 GMT"), 951_868_799)
        // Go's two-digit years below 69 are 20xx.
        XCTAssertEqual(UTCTimestamp.secondsSinceEpoch(httpDate: "Tuesday, 01-Jan-69 00:00:00 GMT"), -31_536_000)
        XCTAssertEqual(UTCTimestamp.secondsSinceEpoch(httpDate: "Tuesday, 01-Jan-68 00:00:00 GMT"), 3_092_601_600)
        for bad in [
            "", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 30 Feb 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT", "1994-11-06T08:49:37Z",
            "Sun, 06 Nov 1994 08:49:3x GMT", "Sun Nov  6 08:49:37 94",
        ] {
            XCTAssertNil(UTCTimestamp.secondsSinceEpoch(httpDate: bad), bad)
        }
    }
}

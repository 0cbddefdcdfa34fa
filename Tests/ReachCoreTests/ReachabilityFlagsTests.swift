import XCTest
@testable import ReachCore

final class ReachabilityFlagsTests: XCTestCase {
    func testFlagStringMatchesTonymillionExamples() {
        XCTAssertEqual(ReachabilityFlags([.reachable, .isDirect]).flagString, "-R ------d")
        XCTAssertEqual(ReachabilityFlags([.reachable, .isLocalAddress, .isDirect]).flagString, "-R -----ld")
        XCTAssertEqual(ReachabilityFlags([.connectionRequired]).flagString, "-- c------")
        XCTAssertEqual(ReachabilityFlags([]).flagString, "-- -------")
    }

    func testEveryBitHasItsLetterAndAppleName() {
        let all = ReachabilityFlags(ReachabilityFlags.named.map(\.flag))
        XCTAssertEqual(all.flagString, "WR ctiCDld")
        XCTAssertEqual(all.rawValue, 0x7_003f)
        XCTAssertEqual(ReachabilityFlags([.isWWAN, .reachable]).names, ["Reachable", "IsWWAN"])
    }
}

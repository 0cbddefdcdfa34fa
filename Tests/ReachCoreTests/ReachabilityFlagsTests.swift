import XCTest
@testable import ReachCore
import ReachSystem

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

    func testBitsAreApplesBits() {
        // kSCNetworkReachabilityFlags* values, SCNetworkReachability.h.
        let expected: [(ReachabilityFlags, UInt32, String)] = [
            (.transientConnection, 1 << 0, "TransientConnection"), (.reachable, 1 << 1, "Reachable"),
            (.connectionRequired, 1 << 2, "ConnectionRequired"), (.connectionOnTraffic, 1 << 3, "ConnectionOnTraffic"),
            (.interventionRequired, 1 << 4, "InterventionRequired"), (.connectionOnDemand, 1 << 5, "ConnectionOnDemand"),
            (.isLocalAddress, 1 << 16, "IsLocalAddress"), (.isDirect, 1 << 17, "IsDirect"), (.isWWAN, 1 << 18, "IsWWAN"),
        ]
        XCTAssertEqual(ReachabilityFlags.named.map(\.name), expected.map(\.2), "bit order")
        for (flag, bit, name) in expected {
            XCTAssertEqual(flag.rawValue, bit, name)
            XCTAssertEqual(flag.names, [name])
        }
    }

    func testEachFlagHasItsOwnPosition() {
        let positions: [(ReachabilityFlags, String)] = [
            (.isWWAN, "W- -------"), (.reachable, "-R -------"), (.connectionRequired, "-- c------"),
            (.transientConnection, "-- -t-----"), (.interventionRequired, "-- --i----"),
            (.connectionOnTraffic, "-- ---C---"), (.connectionOnDemand, "-- ----D--"),
            (.isLocalAddress, "-- -----l-"), (.isDirect, "-- ------d"),
        ]
        for (flag, text) in positions {
            XCTAssertEqual(flag.flagString, text, flag.names.joined())
            XCTAssertEqual(flag.flagString.count, 10)
        }
    }

    func testUnnamedBitsAreNotNamed() {
        let stray = ReachabilityFlags(rawValue: 1 << 8 | 1 << 1)
        XCTAssertEqual(stray.names, ["Reachable"])
        XCTAssertEqual(stray.flagString, "-R -------")
    }
}

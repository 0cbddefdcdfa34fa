import XCTest

@testable import ReachSystem

final class ByteComparisonTests: XCTestCase {
    func testEqualBytesOfASliceAndAnArray() {
        // An echo's data as iputils sends it (byte i is i), behind an 8-byte ICMP header.
        let payload = (0..<56).map { UInt8($0) }
        let datagram = [8, 0, 0, 0, 0, 1, 0, 1] + payload
        XCTAssertTrue(ByteComparison.equal(datagram[8...], payload))
        XCTAssertFalse(ByteComparison.equal(datagram[7...], payload), "a byte longer")
        XCTAssertFalse(ByteComparison.equal(datagram[8..<63], payload), "a byte shorter")
        var changed = datagram
        changed[63] ^= 1
        XCTAssertFalse(ByteComparison.equal(changed[8...], payload))
        XCTAssertTrue(ByteComparison.equal([][...], []))
    }
}

import XCTest
@testable import ReachCore
import ReachSystem

final class ByteReaderTests: XCTestCase {
    func testReadsHostEndianIntegers() throws {
        var reader = ByteReader(hex("01 0201 04030201 feffffff")[...])
        XCTAssertEqual(try reader.readUInt8(), 1)
        XCTAssertEqual(try reader.readHostUInt16(), 0x0102)
        XCTAssertEqual(try reader.readHostUInt32(), 0x0102_0304)
        XCTAssertEqual(try reader.readHostInt32(), -2)
        XCTAssertEqual(reader.remaining, 0)
    }

    func testReadingPastTheEndThrowsAndNamesTheOffset() throws {
        var reader = ByteReader([1, 2, 3][...])
        try reader.skip(1)
        XCTAssertThrowsError(try reader.readHostUInt32()) { error in
            XCTAssertEqual((error as? ParseError)?.offset, 1)
        }
        XCTAssertEqual(reader.relativeOffset, 1, "a failed read consumes nothing")
        XCTAssertThrowsError(try reader.skip(3))
        XCTAssertThrowsError(try reader.skip(-1))
        XCTAssertThrowsError(try reader.readBytes(-1))
        XCTAssertEqual(Array(try reader.readBytes(2)), [2, 3])
        XCTAssertThrowsError(try reader.readUInt8())
    }

    func testOffsetsAreRelativeToTheSlice() throws {
        let bytes: [UInt8] = [9, 9, 9, 1, 0]
        var reader = ByteReader(bytes[3...])
        XCTAssertEqual(reader.relativeOffset, 0)
        XCTAssertEqual(try reader.readHostUInt16(), 1)
        XCTAssertEqual(reader.relativeOffset, 2)
    }

    func testEncodeAndDecodeAgree() {
        XCTAssertEqual(ByteOrder.encodeHost(UInt32(0x0102_0304)), [4, 3, 2, 1])
        XCTAssertEqual(ByteOrder.encodeHost(UInt16(0xabcd)), [0xcd, 0xab])
        XCTAssertEqual(ByteOrder.encodeHost(Int32(-1)), [0xff, 0xff, 0xff, 0xff])
        XCTAssertEqual(ByteOrder.decodeHost(ByteOrder.encodeHost(UInt32(0xdead_beef))[...]), 0xdead_beef)
        XCTAssertEqual(ByteOrder.decodeBig([0x01, 0x02][...]), 0x0102)
    }
}

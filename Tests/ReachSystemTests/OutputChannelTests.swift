#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import XCTest

@testable import ReachSystem

/// A reader that goes away ends the output quietly; any other failed write is kept to be reported.
final class OutputChannelTests: XCTestCase {
    func testAClosedPipeIsTheReaderGoingAwayNotAFailure() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        close(ends[0])
        defer { close(ends[1]) }
        // As ReachMain does: a write to a closed pipe gives EPIPE, not a SIGPIPE death.
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let channel = OutputChannel(fileDescriptor: FileDescriptor.Number(rawValue: ends[1]))
        channel.write("a line\n")
        XCTAssertTrue(channel.readerGone)
        XCTAssertNil(channel.failure)
    }

    func testAFullDeviceIsAFailure() throws {
        let full = open("/dev/full", O_WRONLY)
        if full < 0 { try ContinuousIntegration.cannotRun("no /dev/full") }
        defer { close(full) }
        let channel = OutputChannel(fileDescriptor: FileDescriptor.Number(rawValue: full))
        channel.write("a line\n")
        XCTAssertTrue(channel.readerGone)
        XCTAssertEqual(channel.failure, Errno(rawValue: ENOSPC))
        channel.write("more\n")  // nothing more is tried, and the first failure stays
        XCTAssertEqual(channel.failure, Errno(rawValue: ENOSPC))
    }

    func testWritesThatArriveLeaveNoFailure() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let channel = OutputChannel(fileDescriptor: FileDescriptor.Number(rawValue: ends[1]))
        channel.write("ok\n")
        var bytes = [UInt8](repeating: 0, count: 8)
        XCTAssertEqual(read(ends[0], &bytes, 8), 3)
        XCTAssertEqual(Array(bytes[0..<3]), Array("ok\n".utf8))
        XCTAssertFalse(channel.readerGone)
        XCTAssertNil(channel.failure)
    }
}

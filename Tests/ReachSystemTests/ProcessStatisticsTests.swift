import XCTest

@testable import ReachSystem

/// The process's own figures: a count that cannot be read is unknown (nil), never 0.
final class ProcessStatisticsTests: XCTestCase {
    func testDescriptorsAreCountedAndAnUnreadableDirectoryIsUnknown() throws {
        let statistics = ProcessStatistics.current()
        let open = try XCTUnwrap(statistics.openDescriptors, "/proc/self/fd is readable here")
        XCTAssertGreaterThanOrEqual(open, 3, "stdin, stdout, stderr at least")
        XCTAssertEqual(FileContents.directoryEntries("/nonexistent-\(getpid())"), .failure(Errno(rawValue: ENOENT)))
        XCTAssertEqual(FileContents.directoryEntries("/proc/self/status"), .failure(Errno(rawValue: ENOTDIR)), "a file, not a directory")
        // Every name but "." and "..", and nothing else.
        let names = try FileContents.directoryEntries("/proc/self").get()
        XCTAssertTrue(names.contains("status") && names.contains("fd"), "\(names)")
        XCTAssertFalse(names.contains(".") || names.contains(".."))
    }
}

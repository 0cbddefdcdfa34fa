import XCTest

@testable import ReachSystem

/// The process's own figures: a count that cannot be read is unknown (nil), never 0.
final class ProcessStatisticsTests: XCTestCase {
    func testDescriptorsAreCountedAndAnUnreadableDirectoryIsUnknown() throws {
        let statistics = ProcessStatistics.current()
        let open = try XCTUnwrap(statistics.openDescriptors, "/proc/self/fd is readable here")
        XCTAssertGreaterThanOrEqual(open, 3, "stdin, stdout, stderr at least")
        XCTAssertNil(System.countDirectoryEntries("/nonexistent-\(getpid())"))
        XCTAssertNil(System.countDirectoryEntries("/proc/self/status"), "a file, not a directory")
    }
}

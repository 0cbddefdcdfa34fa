#if canImport(Glibc)
import Glibc
#endif
import XCTest

@testable import ReachSystem

/// ppoll with a CLOCK_MONOTONIC deadline: the engine's "at once" is Int64.min, which once
/// overflowed the remaining-time subtraction (a trap on a firewall's EPERM, found by PingTests).
final class PollDeadlineTests: XCTestCase {
    private func poll(_ descriptor: Int32, until deadline: Int64) throws -> Int16 {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = try withUnsafeMutablePointer(to: &entry) { (pointer) throws(SystemCallError) in
            try System.poll(UnsafeMutableBufferPointer(start: pointer, count: 1), until: deadline)
        }
        return entry.revents
    }

    func testDeadlinesInThePastReturnAtOnce() throws {
        let pipe = try System.pipe()
        defer {
            System.close(pipe.read)
            System.close(pipe.write)
        }
        for deadline in [Int64.min, 0, SystemClock.monotonicNanoseconds() - 1_000_000] {
            let started = SystemClock.monotonicNanoseconds()
            XCTAssertEqual(try poll(pipe.read, until: deadline), 0)
            XCTAssertLessThan(SystemClock.monotonicNanoseconds() - started, 100_000_000)
        }
    }

    func testAFutureDeadlineIsWaitedFor() throws {
        let pipe = try System.pipe()
        defer {
            System.close(pipe.read)
            System.close(pipe.write)
        }
        let started = SystemClock.monotonicNanoseconds()
        _ = try poll(pipe.read, until: started + 20_000_000)
        XCTAssertGreaterThanOrEqual(SystemClock.monotonicNanoseconds() - started, 20_000_000)
    }
}

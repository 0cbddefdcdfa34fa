import XCTest

@testable import ReachCore

/// ppoll with a CLOCK_MONOTONIC deadline: the engine's "at once" is Int64.min, which once
/// overflowed the remaining-time subtraction (a trap on a firewall's EPERM, found by PingTests).
final class PollDeadlineTests: XCTestCase {
    func testDeadlinesInThePastReturnAtOnce() throws {
        let pipe = try System.pipe()
        defer {
            System.close(pipe.read)
            System.close(pipe.write)
        }
        for deadline in [Int64.min, 0, System.monotonicNanoseconds - 1_000_000] {
            let started = System.monotonicNanoseconds
            let ready = try System.poll([(pipe.read, Int16(POLLIN))], until: deadline)
            XCTAssertEqual(ready, [0])
            XCTAssertLessThan(System.monotonicNanoseconds - started, 100_000_000)
        }
    }

    func testAFutureDeadlineIsWaitedFor() throws {
        let pipe = try System.pipe()
        defer {
            System.close(pipe.read)
            System.close(pipe.write)
        }
        let started = System.monotonicNanoseconds
        _ = try System.poll([(pipe.read, Int16(POLLIN))], until: started + 20_000_000)
        XCTAssertGreaterThanOrEqual(System.monotonicNanoseconds - started, 20_000_000)
    }
}

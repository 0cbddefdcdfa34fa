#if canImport(Glibc)
import Glibc
#endif
import XCTest

@testable import ReachSystem

/// ppoll with a CLOCK_MONOTONIC deadline: the engine's "at once" is the earliest instant, which
/// once overflowed the remaining-time subtraction (a trap on a firewall's EPERM, found by PingTests).
final class PollDeadlineTests: XCTestCase {
    private func poll(_ descriptor: Int32, until deadline: MonotonicInstant) throws -> Int16 {
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
        for nanoseconds in [Int64.min, 0, MonotonicInstant.now().nanoseconds - 1_000_000] {
            let deadline = MonotonicInstant(nanoseconds: nanoseconds)
            // "At once" is exact, not a time bound: a ppoll that slept would count a voluntary
            // context switch (getrusage(2) ru_nvcsw); being preempted counts as involuntary.
            let switches = voluntaryContextSwitches()
            XCTAssertEqual(try poll(pipe.read, until: deadline), 0)
            XCTAssertEqual(voluntaryContextSwitches(), switches, "deadline \(nanoseconds) ns: did not sleep")
        }
    }

    func testAFutureDeadlineIsWaitedFor() throws {
        let pipe = try System.pipe()
        defer {
            System.close(pipe.read)
            System.close(pipe.write)
        }
        let started = MonotonicInstant.now()
        XCTAssertEqual(try poll(pipe.read, until: started + .milliseconds(20)), 0)
        let waited = MonotonicInstant.now() - started
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(20))
        // The wait ends at the deadline, plus the timer slack (50 us by default, prctl(2)) and
        // however late the thread is scheduled: 500 ms of margin for a loaded 2-core CI runner.
        // A deadline read in the wrong unit would be far off either way (20 us or 20,000 s).
        XCTAssertLessThan(waited, .milliseconds(520))
    }

    private func voluntaryContextSwitches() -> Int {
        var usage = rusage()
        // RUSAGE_THREAD is 1 (<sys/resource.h>, declared only under _GNU_SOURCE, which Swift's
        // Glibc module does not define): this thread's count, not the test runner's others.
        XCTAssertEqual(getrusage(__rusage_who_t(1), &usage), 0)
        return usage.ru_nvcsw
    }
}

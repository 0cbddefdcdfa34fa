import XCTest

import ReachSystem
@testable import ReachCore

/// The continuous run of the exporter's smokeping targets, on a manual clock.
final class PingEngineContinuousTests: XCTestCase {
    private let first = try! IPAddress.parse("198.51.100.1")
    private let second = try! IPAddress.parse("2001:db8::1")
    private let start = MonotonicInstant(nanoseconds: 5_000_000_000)

    private func engine(firstNumber: Int = 0) -> PingEngine {
        PingEngine(
            continuous: [first, second],
            paces: [
                PingEngine.Pace(period: .seconds(1), timeout: .seconds(1)),
                PingEngine.Pace(period: .milliseconds(250), timeout: .milliseconds(250)),
            ],
            identifiers: (ipv4: 7, ipv6: 9), configuration: PingConfiguration(interval: .zero), start: start, firstNumber: firstNumber)
    }

    /// Each target's send times in milliseconds from the start, over `length`, nothing answered.
    private func sends(_ engine: inout PingEngine, over length: TimeSpan) -> [[Int64]] {
        var times: [[Int64]] = [[], []]
        var now = start
        while now < start + length {
            while let packet = engine.nextProbe(now: now) {
                _ = engine.didSend(packet, realtime: RealtimeInstant(nanoseconds: now.nanoseconds), monotonic: now)
                times[packet.probe.target].append((now - start).milliseconds)
            }
            _ = engine.advance(now: now)
            now += .milliseconds(1)
        }
        return times
    }

    func testEachTargetKeepsItsOwnPeriodAndTheFirstProbesAreSpread() {
        var run = engine()
        let times = sends(&run, over: .seconds(2))
        // Target 1 of 2 starts half of its period in: 125 ms.
        XCTAssertEqual(times[0], [0, 1000])
        XCTAssertEqual(times[1], [125, 375, 625, 875, 1125, 1375, 1625, 1875])
        XCTAssertFalse(run.isFinished)
        XCTAssertEqual(run.statistics.map(\.transmitted), [2, 8])
        // Every probe but those still waiting timed out and counts as lost (fping's `sent`).
        XCTAssertEqual(run.statistics[1].sent, 7)
        XCTAssertEqual(run.statistics[1].received, 0)
    }

    func testARunThatReplacesAnotherGoesOnWithItsNumbers() throws {
        var run = engine(firstNumber: 65_534)
        let packet = try XCTUnwrap(run.nextProbe(now: start))
        XCTAssertEqual(packet.sequence, 65_534)
        _ = run.didSend(packet, realtime: RealtimeInstant(nanoseconds: start.nanoseconds), monotonic: start)
        _ = sends(&run, over: .seconds(1))
        // 1 + 4 probes in the first second, and the sequence wrapped on the way.
        XCTAssertEqual(run.followingNumber, 65_534 + 5)
        XCTAssertEqual(run.nextSequenceNumber, 3)
    }
}

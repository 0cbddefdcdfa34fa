#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// `reach watch --probe` in the probe topology: the connectivity state is part of the
/// watched state, checked every --probe-interval and after every route or link change.
final class WatchProbeTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-probe-" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["ping", "nft"])
    }

    static let probes = ["--probe", "icmp:198.51.100.2", "--probe", "http://198.51.100.2/generate_204"]
    static let every = ["--probe-interval", "1s", "--probe-timeout", "1s"]
    static let pathLine = "IPv4: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2"

    /// The counters `--debug-stats` prints on stderr when the watch ends.
    func statistics(_ watch: WatchProcess) -> [String: Int] {
        let text = watch.standardError
        guard let start = text.range(of: "watch statistics: ") else { return [:] }
        var counters: [String: Int] = [:]
        for item in text[start.upperBound...].split(separator: ",") {
            let words = item.split(separator: " ")
            if words.count == 2, let value = Int(words[1].trimmingCharacters(in: .whitespacesAndNewlines)) {
                counters[String(words[0])] = value
            }
        }
        return counters
    }

    /// Waits for line `index` (0-based); fails when it does not come within `timeout`.
    func line(_ index: Int, of watch: WatchProcess, within timeout: TimeInterval, file: StaticString = #filePath,
              line: UInt = #line) throws -> WatchProcess.Line {
        let lines = watch.waitForLines(index + 1, timeout: timeout)
        guard lines.count > index else {
            XCTFail("no line \(index + 1) within \(timeout) s: \(lines.map(\.text))", file: file, line: line)
            throw HarnessError("missing line")
        }
        return lines[index]
    }

    func testFullThenLimitedThenFullEachPrintedOnceAsTheUplinkIsCutAndRestored() throws {
        let net = try ProbeTopology(lab: lab)
        let watch = try WatchProcess(in: net.host, arguments: ["-4"] + Self.probes + Self.every)
        // The first state waits for the first check: the route and its connectivity together.
        let initial = watch.waitForLines(2, timeout: 3)
        XCTAssertEqual(initial.first?.state, Self.pathLine)
        XCTAssertEqual(initial.dropFirst().first?.state.hasPrefix("connectivity: full ("), true, "\(initial.map(\.text))")
        XCTAssertEqual(initial.count, 2)

        let cut = Date()
        try net.cutUplink()
        // Seen within the probe interval plus the probe timeout (and a margin for a loaded machine).
        let limited = try line(2, of: watch, within: 1 + 1 + 1.5)
        XCTAssertEqual(limited.state, "connectivity: limited (From 198.18.0.1: Destination Net Unreachable)")
        XCTAssertEqual(limited.previous, initial[1].description)
        XCTAssertLessThan(limited.arrival.timeIntervalSince(cut), 1 + 1 + 1.5)

        let restored = Date()
        try net.restoreUplink()
        // While failing the interval has backed off (2 s, then 4 s): up to 4 intervals plus the timeout.
        let full = try line(3, of: watch, within: 4 + 1 + 1.5)
        XCTAssertTrue(full.state.hasPrefix("connectivity: full ("), full.text)
        XCTAssertEqual(full.previous, limited.description)
        XCTAssertLessThan(full.arrival.timeIntervalSince(restored), 4 + 1 + 1.5)

        // Each printed once: the checks that follow, every second, find nothing new.
        sleep(2)
        XCTAssertEqual(watch.lines.count, 4, "\(watch.lines.map(\.text))")
        watch.signal(SIGTERM)
        XCTAssertEqual(watch.waitForExit(timeout: 2), 0)
        XCTAssertEqual(watch.standardError, "")
    }

    func testWithoutARouteItIsNoneSendsNothingAndSetsNoTimerUntilARouteComes() throws {
        let net = try ProbeTopology(lab: lab, defaultRoutes: false)
        try net.routeOnlyToTheInternetsPrefixes()
        try net.countHostPackets()
        let watch = try WatchProcess(in: net.host, arguments: ["-4", "--debug-stats"] + Self.probes + Self.every)
        let initial = watch.waitForLines(2, timeout: 2)
        XCTAssertEqual(initial.map(\.state), ["IPv4: not reachable (no route)", "connectivity: none (no usable route; nothing probed)"])
        sleep(3) // three probe intervals
        XCTAssertEqual(try net.hostPacketsSeen(), 0, "nothing probed without a route")
        XCTAssertEqual(watch.lines.count, 2)

        // The route comes: one change, the path and its connectivity together.
        let added = Date()
        try net.host.ip("route", "add", "default", "via", "198.18.0.1")
        let lines = watch.waitForLines(4, timeout: 2)
        XCTAssertEqual(lines.dropFirst(2).map(\.state).first, Self.pathLine)
        XCTAssertEqual(lines.dropFirst(3).first?.state.hasPrefix("connectivity: full ("), true, "\(lines.map(\.text))")
        XCTAssertEqual(lines.dropFirst(3).first?.previous, "none (no usable route; nothing probed)")
        XCTAssertEqual(lines.count, 4)
        XCTAssertLessThan((lines.last?.arrival ?? .distantFuture).timeIntervalSince(added), 1)
        XCTAssertGreaterThan(try net.hostPacketsSeen(), 0)

        // Then a check a second: about one timer wake-up and one finished check each.
        sleep(3)
        watch.signal(SIGINT)
        XCTAssertEqual(watch.waitForExit(timeout: 2), 0)
        let stats = statistics(watch)
        let checks = stats["checks", default: -1]
        XCTAssertTrue((3...5).contains(checks), "checks in about 3 s at 1 s intervals: \(stats)")
        XCTAssertLessThanOrEqual(stats["wake-ups", default: .max], 2 * checks + stats["drains", default: 0] + 2,
                                 "no wake-ups beyond the probe timer, the checks and the route change: \(stats)")
        XCTAssertEqual(watch.lines.count, 4)
    }
}

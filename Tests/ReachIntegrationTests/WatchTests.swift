import Foundation
import XCTest

/// A namespace of its own for each watch test: v0 (198.18.0.2/24, ours) and its veth peer
/// v1 both inside it, and a default route via 198.18.0.1 (which need not exist: no packet
/// is sent). Setting v1 down takes v0's carrier; setting v0 down flushes its routes.
class WatchTestCase: NamespaceTestCase {
    override class var labPrefix: String { "rch-watch-" }
    var namespace: Namespace!

    override func setUpWithError() throws {
        try super.setUpWithError()
        namespace = try lab.namespace("watch")
        try lab.veth("v0", in: namespace, peer: "v1", in: namespace)
        try namespace.ip(words: "addr add 198.18.0.2/24 dev v0")
        try namespace.ip(words: "route add default via 198.18.0.1")
    }

    func watch(_ arguments: [String]) throws -> WatchProcess {
        try WatchProcess(in: namespace, arguments: arguments)
    }
}

/// `reach watch` against real kernel events: the issue's list.
final class WatchTests: WatchTestCase {
    /// Does `action`, then expects exactly one new line within 1 s whose state contains
    /// `expected` and whose "was:" is the state of the line before it.
    func expectOneLine(_ watch: WatchProcess, _ expected: String, file: StaticString = #filePath, line: UInt = #line,
                       _ action: () throws -> Void) throws {
        let before = watch.lines
        let start = Date()
        try action()
        let after = watch.waitForLines(before.count + 1, timeout: 1)
        guard after.count > before.count else {
            return XCTFail("no line within 1 s for '\(expected)'; lines so far: \(after.map(\.text))", file: file, line: line)
        }
        let new = after[before.count]
        XCTAssertLessThan(new.arrival.timeIntervalSince(start), 1, file: file, line: line)
        XCTAssertTrue(new.state.contains(expected), "'\(new.text)' lacks '\(expected)'", file: file, line: line)
        XCTAssertEqual(new.previous, before.last?.description, "the previous state", file: file, line: line)
        // Exactly one: nothing more follows the change.
        usleep(250_000)
        let extra = watch.lines.dropFirst(before.count + 1).map(\.text)
        XCTAssertEqual(extra, [], "exactly one line", file: file, line: line)
    }

    func testEachChangeIsPrintedOnceInOrderWithItsPreviousState() throws {
        let watch = try watch(["-4"])
        let initial = watch.waitForLines(1)
        XCTAssertEqual(initial.map(\.state), ["IPv4: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2"])
        try expectOneLine(watch, "not reachable (no carrier on v0)") { try namespace.ip(words: "link set v1 down") }
        try expectOneLine(watch, "reachable via virtual v0, gateway 198.18.0.1") { try namespace.ip(words: "link set v1 up") }
        try expectOneLine(watch, "not reachable (no route)") { try namespace.ip(words: "link set v0 down") }
        // Up again: the connected route returns, the default route must be added back.
        try expectOneLine(watch, "reachable via virtual v0, gateway 198.18.0.1") {
            try namespace.ip(words: "link set v0 up")
            try namespace.ip(words: "route add default via 198.18.0.1")
        }
        try expectOneLine(watch, "not reachable (no route)") { try namespace.ip(words: "route del default") }
        try expectOneLine(watch, "reachable via virtual v0, gateway 198.18.0.1") {
            try namespace.ip(words: "route add default via 198.18.0.1")
        }
        try expectOneLine(watch, "not reachable (no route)") { try namespace.ip(words: "addr del 198.18.0.2/24 dev v0") }
        watch.signal(SIGTERM)
        XCTAssertEqual(watch.waitForExit(timeout: 2), 0)
    }

    func testTheRouteToAWatchedAddressMovesToAnotherLinkThenTheLinkIsDeleted() throws {
        try namespace.ip(words: "link add w0 type veth peer name w1")
        try namespace.ip(words: "link set w1 up")
        try namespace.ip(words: "link set w0 up")
        try namespace.ip(words: "addr add 198.19.0.2/24 dev w0")
        try namespace.ip(words: "route add 203.0.113.0/24 via 198.18.0.1 dev v0")
        let watch = try watch(["203.0.113.7"])
        XCTAssertEqual(watch.waitForLines(1).map(\.state), ["203.0.113.7: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2"])
        try expectOneLine(watch, "reachable via virtual w0, gateway 198.19.0.1") {
            try namespace.ip(words: "route replace 203.0.113.0/24 via 198.19.0.1 dev w0")
        }
        // The default route via v0 remains: deleting w0 sends the address back there.
        try expectOneLine(watch, "reachable via virtual v0, gateway 198.18.0.1") { try namespace.ip(words: "link del w0") }
        try expectOneLine(watch, "not reachable (no route)") { try namespace.ip(words: "link del v0") }
    }

    func testAThousandRouteChangesCostFarFewerEvaluationsAndEndInTheRightState() throws {
        try namespace.ip(words: "route del default")
        let watch = try watch(["-4", "--debug-stats"])
        XCTAssertEqual(watch.waitForLines(1).map(\.state), ["IPv4: not reachable (no route)"])
        let routes = (0..<1000).map { "198.19.\($0 / 250).\($0 % 250 + 1)/32" }
        var batch = routes.map { "route add \($0) via 198.18.0.1" }
        batch += routes.map { "route del \($0)" }
        batch.append("route add default via 198.18.0.1")
        try namespace.ipBatch(batch, lab: lab)
        let settled = Date()
        var lines = watch.waitForLines(2, timeout: 2)
        XCTAssertLessThan(Date().timeIntervalSince(settled), 2, "no stall")
        usleep(300_000)
        lines = watch.lines
        let status = try reach(["status", "-4"], in: namespace)
        XCTAssertEqual(status.status, 0)
        XCTAssertEqual(lines.last.map { "\($0.state)\n" }, status.stdout, "the final line is what `reach status` says")
        watch.signal(SIGTERM)
        XCTAssertEqual(watch.waitForExit(timeout: 2), 0)
        let statistics = try Self.statistics(watch.standardError)
        XCTAssertGreaterThanOrEqual(statistics["messages", default: 0], 2001)
        XCTAssertLessThan(statistics["evaluations", default: .max] * 10, statistics["messages", default: 0],
                          "far fewer evaluations than messages: \(statistics)")
    }

    /// "reach: watch statistics: wake-ups 9, drains 8, ..." as a dictionary.
    static func statistics(_ text: String) throws -> [String: Int] {
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("reach: watch statistics: ") })
        var result: [String: Int] = [:]
        for item in line.dropFirst("reach: watch statistics: ".count).components(separatedBy: ", ") {
            let words = item.split(separator: " ")
            result[String(words[0])] = Int(words[1])
        }
        return result
    }

    func testSettleSuppressesAShortFlapAndReportsALongOutage() throws {
        let watch = try watch(["-4", "--settle", "300ms"])
        watch.waitForLines(1)
        try namespace.ip(words: "link set v1 down")
        usleep(50_000)
        try namespace.ip(words: "link set v1 up")
        usleep(700_000)
        XCTAssertEqual(watch.lines.count, 1, "a 50 ms flap prints nothing: \(watch.lines.map(\.text))")

        let outage = Date()
        try namespace.ip(words: "link set v1 down")
        let lines = watch.waitForLines(2, timeout: 1)
        XCTAssertEqual(lines.count, 2)
        let reported = try XCTUnwrap(lines.last)
        XCTAssertTrue(reported.state.contains("no carrier on v0"), reported.text)
        XCTAssertGreaterThanOrEqual(reported.arrival.timeIntervalSince(outage), 0.28, "held 300 ms before it is reported")
        usleep(700_000)
        try namespace.ip(words: "link set v1 up")
        XCTAssertEqual(watch.waitForLines(3, timeout: 1).count, 3)
    }

    func testUntilReachableExitsZeroOnceTheRouteComes() throws {
        try namespace.ip(words: "route del default")
        let watch = try watch(["-4", "--until", "reachable"])
        watch.waitForLines(1)
        let elapsedBeforeRoute = Date().timeIntervalSince(watch.started)
        usleep(UInt32(max(0, 1 - elapsedBeforeRoute) * 1_000_000))
        try namespace.ip(words: "route add default via 198.18.0.1")
        let status = watch.waitForExit(timeout: 3)
        let elapsed = Date().timeIntervalSince(watch.started)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(elapsed, 1, accuracy: 0.5)
        XCTAssertEqual(watch.lines.count, 2)
    }

    func testUntilWithTimeoutAndNoRouteExitsOneAfterTheTimeout() throws {
        try namespace.ip(words: "route del default")
        let watch = try watch(["-4", "--until", "reachable", "--timeout", "1s"])
        let status = watch.waitForExit(timeout: 3)
        XCTAssertEqual(status, 1)
        XCTAssertEqual(Date().timeIntervalSince(watch.started), 1, accuracy: 0.5)
        XCTAssertEqual(watch.lines.map(\.state), ["IPv4: not reachable (no route)"])
    }

    func testUntilAlreadyTrueExitsAtOnce() throws {
        let result = try reach(["watch", "-4", "--until", "reachable"], in: namespace)
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdoutLines.count, 1)
    }

    func testTimeoutWithoutUntilEndsWithZero() throws {
        let watch = try watch(["-4", "--timeout", "300ms"])
        XCTAssertEqual(watch.waitForExit(timeout: 2), 0)
    }

    func testCountEndsAfterNChanges() throws {
        let watch = try watch(["-4", "--count", "2"])
        watch.waitForLines(1)
        try namespace.ip(words: "link set v1 down")
        watch.waitForLines(2, timeout: 1)
        XCTAssertNil(watch.waitForExit(timeout: 0.2), "one change is not two")
        try namespace.ip(words: "link set v1 up")
        XCTAssertEqual(watch.waitForExit(timeout: 1), 0)
        XCTAssertEqual(watch.lines.count, 3)
    }

    func testJSONLinesDecodeAndCarryTheFields() throws {
        let watch = try watch(["-4", "--json"])
        watch.waitForLines(1)
        try namespace.ip(words: "link set v1 down")
        let lines = watch.waitForLines(2, timeout: 1)
        XCTAssertEqual(lines.count, 2)
        let objects = try lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.text.utf8)) as? [String: Any]) }
        XCTAssertEqual(objects.map { $0["event"] as? String }, ["initial", "change"])
        for object in objects {
            XCTAssertEqual(object["schema"] as? Int, 1)
            let time = try XCTUnwrap(object["time"] as? String)
            XCTAssertNotNil(time.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression), time)
        }
        XCTAssertTrue(objects[0]["previous"] is NSNull)
        let current = try XCTUnwrap(objects[1]["current"] as? [String: Any])
        let previous = try XCTUnwrap(objects[1]["previous"] as? [String: Any])
        XCTAssertEqual(current["reachable"] as? Bool, false)
        XCTAssertEqual(current["reason"] as? String, "no_carrier")
        XCTAssertEqual(current["command"] as? String, "watch")
        XCTAssertEqual(previous["reachable"] as? Bool, true)
        let path = try XCTUnwrap((current["paths"] as? [[String: Any]])?.first)
        XCTAssertEqual((path["link"] as? [String: Any])?["name"] as? String, "v0")
        XCTAssertEqual(path["gateway"] as? String, "198.18.0.1")
    }

    func testSignalsEndWithZeroOrOneWhileUntilWaits() throws {
        for (signal, arguments, expected) in [(SIGTERM, ["-4"], Int32(0)), (SIGINT, ["-4"], 0),
                                              (SIGTERM, ["-4", "--until", "unreachable"], 1)] {
            let watch = try watch(arguments)
            watch.waitForLines(1)
            watch.signal(signal)
            XCTAssertEqual(watch.waitForExit(timeout: 1), expected, "\(signal) \(arguments)")
            XCTAssertEqual(watch.standardError, "")
        }
    }

    func testAReaderThatGoesAwayEndsItWithinOneSecondWhileNothingChanges() throws {
        let pipeline = "ip netns exec \(namespace.name) \(ReachBinary.path) watch -4 | head -1; echo \"status ${PIPESTATUS[0]}\""
        let result = try Subprocess.run(["bash", "-c", pipeline], timeout: 5)
        XCTAssertLessThan(result.duration, 1, "\(result)")
        let lines = result.stdoutLines
        XCTAssertEqual(lines.count, 2, "\(result)")
        XCTAssertTrue(lines.first?.contains("IPv4: reachable via virtual v0") == true, "\(result)")
        XCTAssertEqual(lines.last, "status 0", "reach ends quietly with 0 when its reader goes away")
    }

    func testIdleWatchDoesNotWakeUp() throws {
        let watch = try watch([])
        watch.waitForLines(2)
        try watch.waitUntilSettled()
        let before = try watch.voluntaryContextSwitches()
        sleep(3)
        let after = try watch.voluntaryContextSwitches()
        // None: reach sleeps in one poll until a netlink message comes, and none comes here.
        XCTAssertEqual(after - before, 0, "voluntary context switches over 3 idle seconds")
    }
}

/// Overrun and names: the kernel dropping messages, and a host target re-resolved.
final class WatchOverrunAndNameTests: WatchTestCase {
    func testAnOverrunResynchronisesAndCarriesOn() throws {
        try namespace.ip(words: "route del default")
        let watch = try watch(["-4", "--debug-stats", "--debug-receive-buffer", "4096"])
        XCTAssertEqual(watch.waitForLines(1).map(\.state), ["IPv4: not reachable (no route)"])
        // Stopped, the watcher cannot read: the burst overflows its socket.
        watch.signal(SIGSTOP)
        let routes = (0..<1000).map { "198.19.\($0 / 250).\($0 % 250 + 1)/32" }
        try namespace.ipBatch(routes.map { "route add \($0) via 198.18.0.1" } + ["route add default via 198.18.0.1"], lab: lab)
        watch.signal(SIGCONT)
        let lines = watch.waitForLines(2, timeout: 2)
        XCTAssertEqual(lines.last?.state, "IPv4: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2")
        // And it still follows changes after the overrun.
        try namespace.ip(words: "link set v1 down")
        XCTAssertEqual(watch.waitForLines(3, timeout: 1).last?.state, "IPv4: not reachable (no carrier on v0)")
        watch.signal(SIGTERM)
        XCTAssertEqual(watch.waitForExit(timeout: 2), 0)
        let statistics = try WatchTests.statistics(watch.standardError)
        XCTAssertGreaterThanOrEqual(statistics["overruns", default: 0], 1, "\(statistics)")
    }

    func testAHostIsReResolvedAndANameThatDoesNotResolveIsAState() throws {
        let hosts = try namespace.etcFile("hosts", "127.0.0.1 localhost\n203.0.113.7 db.test\n")
        try namespace.etcFile("resolv.conf", "nameserver 127.0.0.1\n") // nothing listens: refused at once
        try namespace.ip(words: "route add 198.51.100.0/24 via 198.18.0.1 dev v0 metric 5")
        let watch = try watch(["db.test", "--resolve-interval", "300ms"])
        let first = watch.waitForLines(1).map(\.state)
        XCTAssertEqual(first, ["db.test (203.0.113.7): reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2"])
        // In place, so the bind mount `ip netns exec` made sees it.
        try overwrite(hosts, "127.0.0.1 localhost\n198.51.100.9 db.test\n")
        let lines = watch.waitForLines(3, timeout: 1.5)
        XCTAssertEqual(lines.count, 3, "\(lines.map(\.text))")
        let changed = lines.dropFirst().map(\.text).sorted()
        let added = changed.first { $0.contains("db.test (198.51.100.9): reachable via virtual v0") }
        XCTAssertTrue(added?.contains("was: not among the addresses") == true, "\(changed)")
        XCTAssertTrue(changed.contains { $0.contains("db.test (203.0.113.7): no longer among the addresses") }, "\(changed)")

        try overwrite(hosts, "127.0.0.1 localhost\n")
        let unresolved = watch.waitForLines(4, timeout: 1.5)
        XCTAssertEqual(unresolved.count, 4)
        XCTAssertTrue(unresolved.last?.state.hasPrefix("db.test: not reachable (name not resolved") == true, "\(unresolved.map(\.text))")
        XCTAssertNil(watch.waitForExit(timeout: 0.1), "a name that does not resolve is a state, not an exit")
    }

    private func overwrite(_ path: String, _ text: String) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }
}

/// Links that appear, are renamed, and `--interface`.
final class WatchLinkTests: WatchTestCase {
    func testARenamedLinkIsReportedByItsNewName() throws {
        let watch = try watch(["-4"])
        XCTAssertEqual(watch.waitForLines(1).count, 1)
        try namespace.ip(words: "link set v0 down")
        XCTAssertEqual(watch.waitForLines(2, timeout: 1).last?.state, "IPv4: not reachable (no route)")
        try namespace.ip(words: "link set v0 name eth7")
        try namespace.ip(words: "link set eth7 up")
        try namespace.ip(words: "route add default via 198.18.0.1")
        let lines = watch.waitForLines(3, timeout: 1)
        XCTAssertEqual(lines.count, 3, "\(lines.map(\.text))")
        XCTAssertEqual(lines.last?.state, "IPv4: reachable via virtual eth7, gateway 198.18.0.1, source 198.18.0.2")
    }

    func testInterfaceCountsOnlyPathsThroughThatLinkEvenOneThatAppearsLater() throws {
        let watch = try watch(["-4", "--interface", "w0", "--until", "reachable", "--timeout", "5s"])
        XCTAssertEqual(watch.waitForLines(1).map(\.state), ["IPv4: not reachable (not the requested interface on v0)"])
        try lab.veth("w0", in: namespace, peer: "w1", in: namespace)
        try namespace.ip(words: "addr add 198.19.0.2/24 dev w0")
        try namespace.ip(words: "route replace default via 198.19.0.1 dev w0")
        XCTAssertEqual(watch.waitForExit(timeout: 2), 0)
        XCTAssertEqual(watch.lines.last?.state, "IPv4: reachable via virtual w0, gateway 198.19.0.1, source 198.19.0.2")
    }
}

/// Several targets in one watch: one stream, each line naming its target, `--until`
/// waiting for all of them (or any), one netlink socket and no wake-ups while idle.
final class WatchSeveralTargetsTests: WatchTestCase {
    private func sockets(of pid: Int32) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
            .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
            .filter { $0.hasPrefix("socket:") }.count
    }

    func testOneStreamNamingEachTargetUntilAllAreReachable() throws {
        try namespace.ip(words: "route del default")
        try namespace.ip(words: "route add 203.0.113.0/24 via 198.18.0.1")
        let watch = try watch(["198.18.0.7", "203.0.113.9", "198.51.100.9", "--until", "reachable"])
        let initial = watch.waitForLines(3)
        XCTAssertEqual(initial.map(\.state), [
            "198.18.0.7: reachable via virtual v0, source 198.18.0.2",
            "203.0.113.9: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2",
            "198.51.100.9: not reachable (no route)",
        ])
        // The sockets of a one-target watch serve all targets (the monitor and the request
        // socket): none per target.
        let one = try self.watch(["198.18.0.7"])
        one.waitForLines(1)
        XCTAssertEqual(try sockets(of: watch.pid), try sockets(of: one.pid))
        one.signal(SIGTERM)
        _ = one.waitForExit(timeout: 2)
        try watch.waitUntilSettled()
        let before = try watch.voluntaryContextSwitches()
        sleep(2)
        XCTAssertEqual(try watch.voluntaryContextSwitches() - before, 0, "no wake-ups while idle")
        XCTAssertNil(watch.waitForExit(timeout: 0.1), "still waiting for the third target")
        try namespace.ip(words: "route add default via 198.18.0.1")
        XCTAssertEqual(watch.waitForExit(timeout: 2), 0, "all three reachable")
        XCTAssertEqual(watch.lines.last?.state, "198.51.100.9: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2")
    }

    func testAnyEndsAtTheFirstReachableTargetAndJSONNamesEachTarget() throws {
        try namespace.ip(words: "route del default")
        let watch = try watch(["203.0.113.9", "198.51.100.9", "--until", "reachable", "--any", "--json"])
        watch.waitForLines(2)
        try namespace.ip(words: "route add 198.51.100.0/24 via 198.18.0.1")
        XCTAssertEqual(watch.waitForExit(timeout: 2), 0)
        let targets = watch.lines.compactMap { line -> String? in
            let object = try? JSONSerialization.jsonObject(with: Data(line.text.utf8)) as? [String: Any]
            return (object?["current"] as? [String: Any])?["target"] as? String
        }
        XCTAssertEqual(targets, ["203.0.113.9", "198.51.100.9", "198.51.100.9"])
    }
}

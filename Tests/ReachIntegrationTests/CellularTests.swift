#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// Cellular and expensive paths from ModemManager and NetworkManager as python-dbusmock's
/// templates play them, on a private system bus: a veth named wwan0 carries the default
/// route, and a modem's NET port names it.
///
/// ```
///  client wwan0 ──── g0 gateway    198.18.0.0/24  (the modem's port)
///         eth1  ──── g1            198.18.1.0/24  (NetworkManager: metered)
///         eth2  ──── g2            198.18.2.0/24  (NetworkManager: not metered)
/// ```
final class CellularTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-cell-" }

    private var client: Namespace!
    private var bus: SystemBus!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try SystemBus.require()
        client = try lab.namespace("client")
        let gateway = try lab.namespace("gateway")
        for (index, name) in ["wwan0", "eth1", "eth2"].enumerated() {
            try lab.veth(name, in: client, peer: "g\(index)", in: gateway)
            try client.ip("address", "add", "198.18.\(index).2/24", "dev", name)
            try gateway.ip("address", "add", "198.18.\(index).1/24", "dev", "g\(index)")
        }
        try useDefaultRoute(via: 0)
        bus = try SystemBus(lab: lab, in: client)
    }

    private func useDefaultRoute(via index: Int) throws {
        try client.ip("route", "replace", "default", "via", "198.18.\(index).1")
    }

    private func status(_ arguments: [String], bus: SystemBus? = nil, file: StaticString = #filePath,
                        line: UInt = #line) throws -> CommandResult {
        let result = try client.exec((bus ?? self.bus).reachCommand(["status", "-4"] + arguments))
        XCTAssertFalse(result.timedOut, file: file, line: line)
        XCTAssertEqual(result.stderr, "", "nothing on stderr: \(result)", file: file, line: line)
        return result
    }

    private func statusJSON(_ arguments: [String] = [], exit: Int32 = 0, file: StaticString = #filePath,
                            line: UInt = #line) throws -> ReachJSON.Path {
        let result = try status(arguments + ["--json"], file: file, line: line)
        XCTAssertEqual(result.status, exit, "\(result)", file: file, line: line)
        return try XCTUnwrap(try ReachJSON.decode(result, file: file, line: line).paths.first, file: file, line: line)
    }

    func testModemClaimsItsLink() throws {
        // Before ModemManager is there, the veth reads as what it is.
        XCTAssertEqual(try statusJSON().link?.kind, "virtual")

        try bus.start("modemmanager")
        try bus.control("add-modem", "wwan0", "5")  // MM_MODEM_3GPP_REGISTRATION_STATE_ROAMING
        let path = try statusJSON()
        XCTAssertEqual(path.link?.kind, "cellular")
        XCTAssertEqual(path.link?.cellular, ReachJSON.Cellular(
            generation: "4g", technologies: ["lte"], operator: "TheOperator", operatorCode: "00101", roaming: true,
            signalPercent: 70, modemState: "enabled"))
        XCTAssertTrue(path.expensive)
        XCTAssertEqual(path.flags, ["TransientConnection", "Reachable", "IsWWAN"])
        XCTAssertEqual(try status([]).stdoutLines, [
            "IPv4: reachable via cellular wwan0 (4G LTE, TheOperator, roaming), gateway 198.18.0.1, source 198.18.0.2, expensive",
        ])

        try bus.control("set-technologies", "\(1 << 5)")  // UMTS
        XCTAssertEqual(try statusJSON().link?.cellular?.generation, "3g")
        XCTAssertEqual(try status([]).stdoutLines, [
            "IPv4: reachable via cellular wwan0 (3G UMTS, TheOperator, roaming), gateway 198.18.0.1, source 198.18.0.2, expensive",
        ])

        // addr (and host, watch) report the same facts: one renderer, one evaluator.
        let addr = try client.exec(bus.reachCommand(["addr", "198.18.0.1"]))
        XCTAssertEqual(addr.status, 0, "\(addr)")
        XCTAssertEqual(addr.stdoutLines, [
            "198.18.0.1: reachable via cellular wwan0 (3G UMTS, TheOperator, roaming), source 198.18.0.2, expensive",
        ])

        let noCellular = try statusJSON(["--no-cellular"], exit: 1)
        XCTAssertEqual(noCellular.reason, "cellular_refused")
        let noExpensive = try statusJSON(["--no-expensive"], exit: 1)
        XCTAssertEqual(noExpensive.reason, "expensive_refused")
        XCTAssertEqual(try status(["--no-expensive"]).stdoutLines, ["IPv4: not reachable (expensive refused on wwan0)"])

        // Another link is not the modem's.
        try useDefaultRoute(via: 2)
        let other = try statusJSON(["--no-expensive"])
        XCTAssertEqual(other.link?.name, "eth2")
        XCTAssertNil(other.link?.cellular)
        XCTAssertFalse(other.expensive)
    }

    func testMeteredLinkIsExpensive() throws {
        try bus.start("networkmanager")
        try bus.control("add-ethernet", "eth1", "1")  // NM_METERED_YES
        try bus.control("add-ethernet", "eth2", "2")  // NM_METERED_NO

        try useDefaultRoute(via: 1)
        let metered = try statusJSON()
        XCTAssertEqual(metered.link?.name, "eth1")
        XCTAssertEqual(metered.link?.kind, "virtual")
        XCTAssertNil(metered.link?.cellular)
        XCTAssertTrue(metered.expensive)
        XCTAssertEqual(try status([]).stdoutLines, ["IPv4: reachable via virtual eth1, gateway 198.18.1.1, source 198.18.1.2, expensive"])
        XCTAssertEqual(try statusJSON(["--no-expensive"], exit: 1).reason, "expensive_refused")
        XCTAssertNil(try statusJSON(["--no-cellular"]).reason, "metered is not cellular")

        try useDefaultRoute(via: 2)
        let unmetered = try statusJSON(["--no-expensive"])
        XCTAssertEqual(unmetered.link?.name, "eth2")
        XCTAssertFalse(unmetered.expensive)
        XCTAssertEqual(try status([]).stdoutLines, ["IPv4: reachable via virtual eth2, gateway 198.18.2.1, source 198.18.2.2"])

        // watch: NetworkManager metering the link is a transition (its PropertiesChanged).
        let watch = try WatchProcess(in: client, arguments: ["-4"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        defer {
            watch.signal(SIGTERM)
            XCTAssertEqual(watch.waitForExit(timeout: 5), 0)
        }
        XCTAssertEqual(watch.waitForLines(1, timeout: 5).count, 1)
        try bus.control("set-metered", "eth2", "3")  // NM_METERED_GUESS_YES
        let lines = watch.waitForLines(2, timeout: 3)
        XCTAssertEqual(lines.count, 2, "\(lines.map(\.text))")
        XCTAssertTrue(lines.last?.text.hasSuffix("IPv4: reachable via virtual eth2, gateway 198.18.2.1, source 198.18.2.2, expensive   "
                                                 + "was: reachable via virtual eth2, gateway 198.18.2.1, source 198.18.2.2") == true,
                      "\(lines.map(\.text))")
    }

    /// One transition line within 1 s of each generation change, none for the signal, and
    /// ModemManager leaving and coming back re-evaluates.
    func testWatchFollowsTheModem() throws {
        try bus.start("modemmanager")
        try bus.control("add-modem", "wwan0", "1")  // home
        let watch = try WatchProcess(in: client, arguments: ["-4"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        defer {
            watch.signal(SIGTERM)
            XCTAssertEqual(watch.waitForExit(timeout: 5), 0)
            XCTAssertEqual(watch.standardError, "")
        }
        let first = watch.waitForLines(1, timeout: 5)
        XCTAssertEqual(first.count, 1)
        XCTAssertTrue(first.first?.text.hasSuffix("IPv4: reachable via cellular wwan0 (4G LTE, TheOperator), gateway 198.18.0.1, "
                                                  + "source 198.18.0.2, expensive") == true, "\(first)")

        // Connected to the bus and subscribed, idle: still no wake-ups (the bus socket sits in the same poll).
        try watch.waitUntilSettled()
        let before = try watch.voluntaryContextSwitches()
        sleep(3)
        XCTAssertEqual(try watch.voluntaryContextSwitches() - before, 0, "voluntary context switches over 3 idle seconds")

        // Each change: the line that shows it, within 1 s, and no other line before it.
        func expectLine(after words: [String], containing expected: String, was: String) throws {
            let before = watch.lines.count
            let sent = Date()
            try bus.control(words[0], words[1])
            let (line, lines) = watch.waitForLine(after: before, timeout: 3) { $0.text.contains(expected) }
            guard let line else { return XCTFail("\(words): no line with \(expected): \(lines.map(\.text))") }
            XCTAssertEqual(lines.count, before + 1, "\(words): one transition line: \(lines.map(\.text))")
            XCTAssertTrue(line.text.contains("was: ") && line.text.contains(was), line.text)
            XCTAssertLessThan(line.arrival.timeIntervalSince(sent), 1.0, "within 1 s of the change")
        }
        try expectLine(after: ["set-technologies", "\(1 << 5)"], containing: "(3G UMTS, TheOperator)", was: "(4G LTE, TheOperator)")
        // The signal alone is no transition.
        try bus.control("set-signal", "20")
        usleep(1_000_000)
        XCTAssertEqual(watch.lines.count, 2, "\(watch.lines.map(\.text))")
        try expectLine(after: ["set-technologies", "\(1 << 14 | 1 << 15)"], containing: "(5G NR/LTE, TheOperator)",
                       was: "(3G UMTS, TheOperator)")

        // ModemManager leaves the bus: the link is a veth again; it comes back: cellular again.
        bus.stop("modemmanager")
        let virtual = watch.waitForLine(after: 3, timeout: 3) { $0.text.contains("IPv4: reachable via virtual wwan0, gateway 198.18.0.1") }
        XCTAssertNotNil(virtual.line, "\(virtual.lines.map(\.text))")
        let afterLeaving = virtual.lines.count
        try bus.start("modemmanager")
        try bus.control("add-modem", "wwan0", "5")
        // The mock announces its modem (InterfacesAdded) before add-modem gives it Ports and its
        // registration, and AddProperty emits nothing: the next PropertiesChanged is when reach
        // sees both. reach may also have asked in between and shown the modem without its
        // registration: a real state (ModemManager registers a modem after exporting it), and
        // so a line of its own. What is asserted is the state the modem ends in.
        try bus.control("set-signal", "60")
        let roaming = watch.waitForLine(after: afterLeaving, timeout: 3) {
            $0.text.contains("reachable via cellular wwan0 (4G LTE, TheOperator, roaming)")
        }
        XCTAssertNotNil(roaming.line, "\(roaming.lines.map(\.text))")
    }

    /// No bus, a bus without the services, a service that never replies: status answers as
    /// it does without any bus, within 0.3 s of its usual time, and never fails.
    func testBusFailuresCostLittle() throws {
        func timed(_ command: [String]) throws -> (seconds: Double, lines: [String]) {
            var runs: [(Double, [String])] = []
            for _ in 0..<3 {
                let started = Date()
                let result = try client.exec(command)
                runs.append((Date().timeIntervalSince(started), result.stdoutLines))
                XCTAssertEqual(result.status, 0, "\(command): \(result)")
                XCTAssertEqual(result.stderr, "", "\(command): \(result)")
            }
            return runs.sorted { $0.0 < $1.0 }[1]
        }
        let expected = ["IPv4: reachable via virtual wwan0, gateway 198.18.0.1, source 198.18.0.2"]
        let usual = try timed(["env", "DBUS_SYSTEM_BUS_ADDRESS=unix:path=\(lab.directory)/no-such-socket", ReachBinary.path,
                               "status", "-4"])
        XCTAssertEqual(usual.lines, expected)

        let empty = try timed(bus.reachCommand(["status", "-4"]))
        XCTAssertEqual(empty.lines, expected)
        XCTAssertLessThan(empty.seconds, usual.seconds + 0.3, "a bus without the services")

        try bus.start("modemmanager")
        try bus.control("add-modem", "wwan0", "1")
        try bus.freeze("modemmanager", true)
        defer { try? bus.freeze("modemmanager", false) }
        let silent = try timed(bus.reachCommand(["status", "-4"]))
        XCTAssertEqual(silent.lines, expected, "the facts are unknown: the kernel's word stands")
        XCTAssertLessThan(silent.seconds, usual.seconds + 0.3, "a service that never replies")
        XCTAssertGreaterThanOrEqual(silent.seconds, 0.25, "it was waited for, 250 ms")
    }
}

import Foundation
import XCTest

/// `reach addr A B ...` and `reach host A B ...`: one run for many targets, on the lab's
/// network (LabTopology), names from dnsmasq and a DNS server that never answers, both
/// started in the router.
final class ManyTargetsTests: NamespaceTestCase {
    private var net: LabTopology!

    override func setUpWithError() throws {
        try super.setUpWithError()
        net = try LabTopology(lab: lab, attachTun: false)
        try net.client.useResolver(["198.18.0.1"])
    }

    /// dnsmasq on 198.18.0.1; names under slow.reach.test forwarded to a server on 198.18.0.3
    /// that never answers.
    private func startDNS() throws -> (dnsmasq: BackgroundProcess, silent: BackgroundProcess) {
        try net.router.ip("addr", "add", "198.18.0.3/24", "dev", "r0")
        let silent = try lab.startSilentDNS(in: net.router, address: "198.18.0.3")
        var records: [String: [String]] = [
            "db.reach.test": ["198.18.1.2"],
            "gw.reach.test": ["198.18.0.1"],
            "rejected.reach.test": ["203.0.113.1"],
        ]
        for index in 0..<40 { records["n\(index).reach.test"] = ["198.18.1.2"] }
        let dnsmasq = try lab.startDNSMasq(
            in: net.router, address: "198.18.0.1", records: records, nonexistent: ["missing.reach.test"],
            options: ["--server=/slow.reach.test/198.18.0.3"])
        return (dnsmasq, silent)
    }

    /// The exit-status table over mixed lists: 0 all reachable (with --any, one); else 2 when
    /// a name did not resolve, else 1.
    func testExitStatusOverMixedLists() throws {
        _ = try startDNS()
        let table: [(arguments: [String], status: Int32)] = [
            (["addr", "198.18.1.2", "198.18.0.1", "::1"], 0),
            (["addr", "198.18.1.2", "203.0.113.1", "198.18.0.1"], 1),
            (["addr", "198.18.1.2", "203.0.113.1", "--any"], 0),
            (["addr", "203.0.113.1", "203.0.113.65", "--any"], 1),
            (["host", "db.reach.test", "gw.reach.test"], 0),
            (["host", "db.reach.test", "rejected.reach.test"], 1),
            (["host", "db.reach.test", "missing.reach.test"], 2),
            (["host", "rejected.reach.test", "missing.reach.test", "db.reach.test"], 2),
            (["host", "db.reach.test", "missing.reach.test", "--any"], 0),
            (["host", "rejected.reach.test", "missing.reach.test", "--any"], 2),
            (["host", "rejected.reach.test", "203.0.113.65", "--any"], 1),
        ]
        for (arguments, status) in table {
            let result = try reach(arguments, in: net.client)
            XCTAssertEqual(result.status, status, "\(arguments): \(result)")
            let quiet = try reach(arguments + ["-q"], in: net.client)
            XCTAssertEqual(quiet.status, status, "\(arguments) -q")
            XCTAssertEqual(quiet.stdout, "")
            let document = try ReachManyJSON.decode(try reach(arguments + ["--json"], in: net.client))
            XCTAssertEqual(document.reachable, status == 0, "\(arguments): reachable as the exit status says")
        }
    }

    /// Text: each target's lines as a run for it alone prints them, in the order given.
    /// JSON: each result is the document a run for that target alone prints.
    func testEachTargetAsItsOwnRunWouldSayIt() throws {
        _ = try startDNS()
        for (command, targets) in [("addr", ["198.18.1.2", "203.0.113.1", "2001:db8:1::2", "198.18.2.1"]),
                                   ("host", ["db.reach.test", "missing.reach.test", "rejected.reach.test", "198.18.0.1"])] {
            let together = try reach([command] + targets, in: net.client)
            var alone = ""
            for target in targets { alone += try reach([command, target], in: net.client).stdout }
            XCTAssertEqual(together.stdout, alone, command)

            let document = try ReachManyJSON.decode(try reach([command] + targets + ["--json"], in: net.client))
            XCTAssertEqual(document.command, command)
            XCTAssertFalse(document.reachable)
            XCTAssertEqual(document.results.map(\.target), targets)
            for (target, result) in zip(targets, document.results) {
                let single = try reachJSON([command, target], in: net.client, status: nil)
                XCTAssertEqual(result, single, target)
            }
        }
        // Field by field, for one mixed list.
        let document = try ReachManyJSON.decode(
            try reach(["host", "db.reach.test", "missing.reach.test", "rejected.reach.test", "--json"], in: net.client))
        XCTAssertEqual(document.schema, 1)
        XCTAssertEqual(document.command, "host")
        XCTAssertEqual(document.results.map(\.reachable), [true, false, false])
        XCTAssertEqual(document.results.map(\.reason), [nil, "name_not_resolved", "unreachable_route"])
        XCTAssertEqual(document.results[0].paths.map(\.address), ["198.18.1.2"])
        XCTAssertEqual(document.results[0].paths.first?.gateway, "198.18.0.1")
        XCTAssertEqual(document.results[0].paths.first?.link?.name, "v0")
        XCTAssertEqual(document.results[1].resolverError, "Name or service not known")
        XCTAssertEqual(document.results[1].paths, [])
        XCTAssertEqual(document.results[2].paths.map(\.reason), ["unreachable_route"])
        // One target is exactly today's document, not an envelope.
        let one = try reachJSON(["host", "db.reach.test"], in: net.client, status: 0)
        XCTAssertEqual(one.target, "db.reach.test")
    }

    /// Names that hang in DNS cost the others nothing: every lookup is bounded by --timeout
    /// from its start, and the pool grows while all its threads are held.
    func testHangingNamesDoNotDelayTheOthers() throws {
        let servers = try startDNS()
        let good = (0..<40).map { "n\($0).reach.test" }
        let hanging = (0..<10).map { "h\($0).slow.reach.test" }
        // The hanging names first: a pool that waited for them would answer nothing else in time.
        let names = hanging + good
        let result = try reach(["host", "--timeout", "1s", "--json"] + names, in: net.client)
        XCTAssertEqual(result.status, 2, "\(result)")
        XCTAssertLessThan(result.duration, 1.5, "wall time within --timeout + 0.5 s")
        let document = try ReachManyJSON.decode(result)
        XCTAssertEqual(document.results.map(\.target), names)
        for report in document.results.prefix(10) {
            XCTAssertEqual(report.resolverError, "no answer within 1 s", report.target ?? "")
        }
        for report in document.results.dropFirst(10) {
            XCTAssertTrue(report.reachable, "\(report.target ?? ""): \(report.resolverError ?? "")")
            XCTAssertEqual(report.paths.map(\.address), ["198.18.1.2"])
        }
        XCTAssertTrue(servers.silent.log.contains("dropped"), "the hanging names reached the silent server")
        XCTAssertTrue(servers.dnsmasq.log.contains("query[A] n39.reach.test"), "the good names were asked of dnsmasq")
    }

    /// `watch A B`: the first lines in the order given, even when A is a name that takes
    /// the whole lookup patience (5 s) and B an address known at once.
    func testWatchShowsTheFirstLinesInTheOrderGiven() throws {
        _ = try startDNS()
        let result = try ReachBinary.run(["watch", "-4", "hang.slow.reach.test", "198.18.0.1", "--timeout", "7s"], in: net.client)
        XCTAssertEqual(result.stdoutLines.count, 2, "\(result)")
        XCTAssertTrue(result.stdoutLines.first?.contains("hang.slow.reach.test") == true, "\(result)")
        XCTAssertTrue(result.stdoutLines.last?.contains("198.18.0.1") == true, "\(result)")
    }

    /// --targets-from given twice: addr, host, ping and watch read both files, in order,
    /// after the operands (it kept only the last file, silently).
    func testTargetsFromTwiceReadsBothFiles() throws {
        _ = try startDNS()
        let first = try lab.script("first.txt", "198.18.1.2\n")
        let second = try lab.script("second.txt", "# the router\n198.18.0.1\n")
        let files = ["--targets-from", first, "--targets-from", second]
        let addr = try reach(["addr", "::1"] + files + ["--json"], in: net.client)
        XCTAssertEqual(try ReachManyJSON.decode(addr).results.map(\.target), ["::1", "198.18.1.2", "198.18.0.1"], "\(addr)")
        let names = try lab.script("names.txt", "db.reach.test\n")
        let host = try reach(["host", "--targets-from", names] + files + ["--json"], in: net.client)
        XCTAssertEqual(try ReachManyJSON.decode(host).results.map(\.target), ["db.reach.test", "198.18.1.2", "198.18.0.1"], "\(host)")
        let ping = try ReachBinary.run(["ping", "-W", "0.5"] + files, in: net.client, timeout: 15)
        XCTAssertEqual(ping.status, 0, "\(ping)")
        XCTAssertEqual(Set(ping.stdoutLines), ["198.18.1.2 is alive", "198.18.0.1 is alive"], "\(ping)")
        let watch = try ReachBinary.run(["watch", "-4", "--timeout", "1s"] + files, in: net.client, timeout: 15)
        XCTAssertEqual(watch.stdoutLines.count, 2, "\(watch)")
        XCTAssertTrue(watch.stdoutLines.first?.contains("198.18.1.2") == true, "\(watch)")
        XCTAssertTrue(watch.stdoutLines.last?.contains("198.18.0.1") == true, "\(watch)")
    }

    /// --targets-from: a file (comments, blank lines, CRLF) and standard input, after the operands.
    func testTargetsFromFileAndStandardInput() throws {
        _ = try startDNS()
        let path = try lab.script("targets.txt", "# the database\r\ndb.reach.test\r\n\n   gw.reach.test   # the router\n")
        let fromFile = try reach(["host", "198.18.1.2", "--targets-from", path, "--json"], in: net.client)
        XCTAssertEqual(fromFile.status, 0, "\(fromFile)")
        XCTAssertEqual(try ReachManyJSON.decode(fromFile).results.map(\.target), ["198.18.1.2", "db.reach.test", "gw.reach.test"])

        let piped = try net.client.exec(["sh", "-c", "printf '198.18.1.2\\n203.0.113.1\\n' | \(ReachBinary.path) addr --targets-from -"])
        XCTAssertEqual(piped.status, 1, "\(piped)")
        XCTAssertEqual(piped.stdoutLines.count, 2, "\(piped)")
        XCTAssertTrue(piped.stdoutLines[1].hasPrefix("203.0.113.1: not reachable (unreachable route)"), "\(piped)")
        // A line that is no address is named with its line, before anything is looked up.
        let bad = try net.client.exec(["sh", "-c", "printf '198.18.1.2\\n\\n999.1.1.1\\n' | \(ReachBinary.path) addr --targets-from -"])
        XCTAssertEqual(bad.status, 64, "\(bad)")
        XCTAssertEqual(bad.stdout, "")
        XCTAssertEqual(bad.stderrLines, ["reach: --targets-from standard input: line 3: invalid IP address '999.1.1.1'"])
    }

    /// Lists that are bad input: one `reach:` line, exit 64, and not one query sent, even
    /// when the fault is on the last of 100,000 lines.
    func testBadListsAreRefusedBeforeAnythingIsAsked() throws {
        let servers = try startDNS()
        let empty = try lab.script("empty.txt", "# nothing but a comment\n\n")
        let longNames = try lab.script("names.txt", (0..<99_999).map { "n\($0 % 40).reach.test\n" }.joined() + "bad name\n")
        let longAddresses = try lab.script("addresses.txt", (0..<99_999).map { "198.18.1.\($0 % 250)\n" }.joined() + "999.1.1.1\n")
        let notUTF8 = "\(lab.directory)/bytes.txt"
        try Data("db.reach.test\n".utf8 + [0x64, 0x62, 0xff, 0x0a]).write(to: URL(fileURLWithPath: notUTF8))
        let cases: [([String], String)] = [
            (["host", "--targets-from", empty], "no targets"),
            (["host", "--targets-from", longNames], "line 100000: one target a line"),
            (["host", "--targets-from", notUTF8], "line 2 is not valid UTF-8"),
            (["host", "db.reach.test", "bad name"], "space"),
            (["addr", "198.18.1.2", "--targets-from", longAddresses], "invalid IP address '999.1.1.1'"),
            (["addr", "198.18.1.2", "2001:db8::1", "--from", "198.18.0.2"], "--from 198.18.0.2 is IPv4, '2001:db8::1' is IPv6"),
        ]
        for (arguments, says) in cases {
            let result = try ReachBinary.run(arguments, in: net.client)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
            XCTAssertEqual(result.stderrLines.count, 1, "\(arguments): \(result)")
            XCTAssertTrue(result.stderr.hasPrefix("reach: ") && result.stderr.contains(says), "\(arguments): \(result)")
        }
        XCTAssertFalse(servers.dnsmasq.log.contains("query["), "no query sent: \(servers.dnsmasq.log)")
    }

    /// A long mixed list, over several parts and many batches of lookups: each line is the
    /// one a run for that address alone prints, each JSON result the document it prints.
    func testEveryVerdictOfALongListIsTheOneTargetAnswer() throws {
        // Reachable (direct, through the router, policy-routed, a tun), unreachable and
        // blackhole routes, a link without carrier, two links, no route; both families.
        let kinds = ["198.18.0.1", "198.18.1.2", "198.18.9.5", "198.51.100.130", "203.0.113.1", "203.0.113.65",
                     "198.18.2.1", "198.18.3.1", "192.0.2.1", "2001:db8:1::2", "2001:db8:f2::1", "2001:db8:2::1"]
        let list = (0..<2_500).map { kinds[$0 % kinds.count] }
        let path = try lab.script("mixed.txt", list.joined(separator: "\n") + "\n")
        var alone: [String: (line: String, json: ReachJSON)] = [:]
        for target in kinds {
            let line = try reach(["addr", target], in: net.client).stdout
            alone[target] = (line, try reachJSON(["addr", target], in: net.client, status: nil))
        }
        XCTAssertTrue(alone["198.18.2.1"]!.line.contains("no carrier on v2"), "\(alone["198.18.2.1"]!.line)")
        XCTAssertTrue(alone["203.0.113.65"]!.line.contains("blackhole route"), "\(alone["203.0.113.65"]!.line)")
        XCTAssertTrue(alone["198.18.3.1"]!.line.contains("via virtual v3"), "\(alone["198.18.3.1"]!.line)")

        let text = try reach(["addr", "--targets-from", path], in: net.client)
        XCTAssertEqual(text.status, 1)
        XCTAssertEqual(text.stdout, list.map { alone[$0]!.line }.joined())

        let json = try ReachManyJSON.decode(try reach(["addr", "--targets-from", path, "--json"], in: net.client))
        XCTAssertFalse(json.reachable)
        XCTAssertEqual(json.results.count, list.count)
        for (target, result) in zip(list, json.results) where result != alone[target]!.json {
            return XCTFail("\(target): \(result) is not \(alone[target]!.json)")
        }
    }

    /// 100,000 addresses are answered (a route lookup holds no state: no 65,536 limit), in
    /// order, from a file and from standard input.
    func testAHundredThousandAddresses() throws {
        // 198.18.0.x and 198.18.1.x are reachable; 198.18.2.x leave through v2, without carrier.
        let list = (0..<100_000).map { "198.18.\($0 / 250 % 3).\($0 % 250 + 1)" }
        let path = try lab.script("many.txt", list.joined(separator: "\n") + "\n")
        // The bound is against a hang, not a speed check (make bench times this): a sanitizer's
        // debug build takes about 40 s for what a release build does in under a second.
        let bound = 300.0
        let result = try ReachBinary.run(["addr", "--targets-from", path], in: net.client, timeout: bound)
        XCTAssertFalse(result.timedOut, "no answer within \(bound) s")
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdoutLines.count, list.count)
        let answered = result.stdoutLines.map { String($0.prefix { $0 != ":" }) }
        let firstDifference = answered.indices.first { index in index < list.count && answered[index] != list[index] }
        XCTAssertNil(firstDifference, "answers out of order from line \((firstDifference ?? 0) + 1)")
        let piped = try net.client.exec(["sh", "-c", "\(ReachBinary.path) addr -q --any --targets-from - < \(path)"], timeout: bound)
        XCTAssertEqual(piped.status, 0, "\(piped)")
        XCTAssertEqual(piped.stdout, "")
    }
}

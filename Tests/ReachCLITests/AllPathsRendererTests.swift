import Foundation
import XCTest

@testable import ReachCLI
import ReachSystem
@testable import ReachCore

/// `status --all`'s lines and `all_paths`, `watch --all`'s path lines and `path_changes`, and
/// `host --connect`'s race.
final class AllPathsRendererTests: XCTestCase {
    private let renderer = ReportRenderer(showsFlags: false)
    private let time = RealtimeInstant(nanoseconds: 1_795_000_000_000 * 1_000_000)
    private let stamp = "2026-11-18T11:06:40.000Z"

    private func choice(_ link: String, _ index: UInt32, gateway: String?, metric: UInt32, table: UInt32 = 254,
                        rule: (UInt32, String) = (32766, "all"), reason: UnreachableReason? = nil, skip: PathChoice.Skip? = nil,
                        inUse: Bool = false) throws -> PathChoice {
        let report = PathReport(
            destination: try IPAddress.parse("8.8.8.8"), flags: reason == nil ? [.reachable] : [.connectionRequired], reason: reason,
            link: LinkReport(name: link, index: index, kind: .ethernet, operState: reason == nil ? .up : .lowerLayerDown),
            gateway: try gateway.map { try IPAddress.parse($0) })
        return PathChoice(rulePriority: rule.0, ruleSelector: rule.1, table: table, metric: metric, routeType: .unicast, report: report,
                          skip: skip, inUse: inUse)
    }

    private func status(_ choices: [PathChoice]) throws -> ReachabilityReport {
        let inUse = try XCTUnwrap(choices.first { $0.inUse })
        var report = ReachabilityReport(subject: .internet, paths: [inUse.report])
        report.allPaths = choices
        return report
    }

    private func twoUplinks(firstLost: Bool) throws -> [PathChoice] {
        let up0 = try choice("up0", 2, gateway: "198.18.10.1", metric: 100, reason: firstLost ? .noCarrier : nil,
                             skip: firstLost ? .linkDownIgnored : nil, inUse: !firstLost)
        let up1 = try choice("up1", 3, gateway: "198.18.11.1", metric: 200, inUse: firstLost)
        let tun = try choice("tun0", 9, gateway: nil, metric: 0, table: 100, rule: (100, "from 198.51.100.7"))
        return firstLost ? [up1, tun, up0] : [up0, tun, up1]
    }

    func testEachFamilysPathsFollowItsLine() throws {
        let text = renderer.text(try status(try twoUplinks(firstLost: true)))
        XCTAssertEqual(text, """
            IPv4: reachable via ethernet up1, gateway 198.18.11.1
              1. up1 (ethernet, up), gateway 198.18.11.1, metric 200, table main: reachable, in use
              2. tun0 (ethernet, up), metric 0, table 100, rule 100 from 198.51.100.7: reachable
              3. up0 (ethernet, lowerlayerdown), gateway 198.18.10.1, metric 100, table main: not reachable (no carrier), \
            passed over (ignore_routes_with_linkdown)

            """)
        var noRoute = ReachabilityReport(subject: .internet, paths: [
            PathReport(destination: try IPAddress.parse("2001:4860:4860::8888"), flags: [], reason: .noRoute),
        ])
        noRoute.allPaths = []
        XCTAssertEqual(renderer.text(noRoute), "IPv6: not reachable (no route)\n  no default route\n")
        var split = try choice("tun0", 9, gateway: nil, metric: 0, inUse: true)
        split.prefix = "0.0.0.0/1"
        var words: [UInt8] = []
        renderer.write(split, to: &words)
        XCTAssertEqual(String(decoding: words, as: UTF8.self),
                       "tun0 (ethernet, up), route 0.0.0.0/1, metric 0, table main: reachable, in use")
    }

    func testAllPathsInJSONInTheSameOrder() throws {
        let text = renderer.json(try status(try twoUplinks(firstLost: false)), command: "status").serialized()
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let paths = try XCTUnwrap(object["all_paths"] as? [[String: Any]])
        XCTAssertEqual(paths.map { ($0["link"] as? [String: Any])?["name"] as? String }, ["up0", "tun0", "up1"])
        XCTAssertEqual(paths.map { $0["in_use"] as? Bool }, [true, false, false])
        XCTAssertEqual(paths[1]["rule_selector"] as? String, "from 198.51.100.7")
        XCTAssertEqual(paths[1]["table"] as? Int, 100)
        XCTAssertTrue(paths[1]["gateway"] is NSNull)
        XCTAssertEqual(paths[2]["metric"] as? Int, 200)
        let plain = renderer.json(ReachabilityReport(subject: .internet, paths: []), command: "status").serialized()
        XCTAssertFalse(plain.contains("all_paths"), "only with --all")
    }

    func testWatchAllPrintsEachPathThatMovedAndNamesWhatChanged() throws {
        let event = WatchEvent(kind: .change, time: time, current: try status(try twoUplinks(firstLost: true)),
                               previous: try status(try twoUplinks(firstLost: false)))
        let lines = WatchRenderer(report: renderer).text(event).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, "\(lines)")
        XCTAssertTrue(lines[0].hasPrefix("\(stamp)  IPv4: reachable via ethernet up1"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("\(stamp)  IPv4 path: 1. up1 (ethernet, up), gateway 198.18.11.1, metric 200, table main: "
                                          + "reachable, in use   was: 3. up1"), lines[1])
        XCTAssertTrue(lines[2].contains("IPv4 path: 3. up0 (ethernet, lowerlayerdown)"), lines[2])
        XCTAssertTrue(lines[2].contains("   was: 1. up0 (ethernet, up)"), lines[2])

        let json = WatchRenderer(report: renderer).json(event).serialized()
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let changes = try XCTUnwrap(object["path_changes"] as? [[String: Any]])
        XCTAssertEqual(changes.map { $0["link"] as? String }, ["up1", "up0"])
        XCTAssertEqual(changes.map { $0["changed"] as? [String] }, [["rank", "in_use"], ["rank", "reachable", "in_use", "skipped"]])
        let initial = WatchEvent(kind: .initial, time: time, current: try status(try twoUplinks(firstLost: false)), previous: nil)
        let first = WatchRenderer(report: renderer).json(initial).serialized()
        XCTAssertTrue(first.contains("\"path_changes\":[{"), "every path is new at the start: \(first)")
    }

    func testAPathThatGoesSaysSo() throws {
        let paths = try twoUplinks(firstLost: false)
        let event = WatchEvent(kind: .change, time: time, current: try status(Array(paths.prefix(2))), previous: try status(paths))
        XCTAssertEqual(WatchRenderer(report: renderer).text(event),
                       "\(stamp)  IPv4 path: no longer a path out   was: 3. up1 (ethernet, up), gateway 198.18.11.1, metric 200, "
                       + "table main: reachable\n")
    }

    func testTheRaceSaysWhoWonAndEachAttemptsTime() throws {
        let start = MonotonicInstant(nanoseconds: 5_000_000_000)
        var race = HappyEyeballsRace(addresses: [try IPAddress.parse("2001:db8:f::10"), try IPAddress.parse("203.0.113.10")], start: start)
        _ = race.started(at: start)
        _ = race.started(at: start + .milliseconds(250))
        race.finished(1, .connected, at: start + .nanoseconds(251_300_000))
        let renderer = ConnectRaceRenderer(port: 8081)
        XCTAssertEqual(renderer.text(race), """
            tried first: 2001:db8:f::10 (getaddrinfo's order, RFC 6724)
            connect to port 8081: 203.0.113.10 won in 251.3 ms (Happy Eyeballs, RFC 8305)
              IPv6 2001:db8:f::10: no answer, cancelled after 251.3 ms
              IPv4 203.0.113.10: connected in 1.3 ms, started at 250.0 ms

            """)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(renderer.json(race).serialized().utf8)) as? [String: Any])
        XCTAssertEqual(object["winner"] as? String, "203.0.113.10")
        XCTAssertEqual(object["time_ms"] as? Double, 251.3)
        let families = try XCTUnwrap(object["families"] as? [[String: Any]])
        XCTAssertEqual(families.map { $0["family"] as? String }, ["ipv4", "ipv6"])
        XCTAssertEqual(families.map { $0["result"] as? String }, ["connected", "cancelled"])
    }
}

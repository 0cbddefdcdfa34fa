import XCTest

import ReachCore
@testable import ReachCLI
import ReachSystem

final class ReportRendererTests: XCTestCase {
    private let renderer = ReportRenderer(showsFlags: false)

    private func address(_ text: String) -> IPAddress { try! IPAddress.parse(text) }

    private func reachable(_ destination: String, via link: LinkReport, flags: ReachabilityFlags = .reachable) -> ReachabilityReport {
        let path = PathReport(destination: address(destination), flags: flags, reason: nil, link: link,
                              gateway: address("198.18.0.1"), source: address("198.18.0.2"))
        return ReachabilityReport(subject: .address(address(destination)), paths: [path])
    }

    /// A list's reports written one after another, each copying what it shares with the one
    /// before, read exactly as the same reports written alone: neighbours that share their
    /// link and flags, then differ in each, a verdict, a subject, a path count.
    func testAListsReportsReadAsEachWrittenAlone() {
        let v0 = LinkReport(name: "v0", index: 2, kind: .virtual, operState: .up)
        let eth1 = LinkReport(name: "eth1", index: 3, kind: .ethernet, operState: .up)
        let unreachable = PathReport(destination: address("198.51.100.9"), flags: [], reason: .blackholeRoute)
        let twoPaths = ReachabilityReport(subject: .host("dual.test"), paths: [
            PathReport(destination: address("2001:db8::1"), flags: [.reachable, .isDirect], reason: nil, link: eth1),
            PathReport(destination: address("198.18.64.3"), flags: .reachable, reason: nil, link: v0, gateway: address("198.18.0.1")),
        ])
        let reports = [
            reachable("198.18.64.1", via: v0), reachable("198.18.64.2", via: v0), reachable("198.18.64.3", via: eth1),
            reachable("198.18.64.4", via: eth1, flags: [.reachable, .isWWAN]), reachable("198.18.64.5", via: v0),
            ReachabilityReport(subject: .address(address("198.51.100.9")), paths: [unreachable]),
            ReachabilityReport(subject: .address(address("198.51.100.9")), paths: [unreachable]),
            twoPaths, reachable("198.18.64.6", via: v0),
            ReachabilityReport(subject: .host("missing.test"), paths: [], resolutionFailure: "Name or service not known"),
            twoPaths,
        ]
        var writer = JSONWriter()
        var repeated = ReportRenderer.RepeatedJSON()
        for report in reports { renderer.write(report, command: "addr", to: &writer, repeated: &repeated) }
        let alone = reports.map { renderer.json($0, command: "addr").serialized() }
        XCTAssertEqual(writer.output, alone.joined(separator: ","))
        XCTAssertTrue(alone[3].contains(#""flags":["Reachable","IsWWAN"],"flag_string":"WR -------""#), alone[3])
    }

    /// A broadcast or multicast destination is named after "reachable", in JSON as
    /// `delivery`; a list writes it again where its neighbour has none.
    func testDeliveryIsNamed() {
        let v0 = LinkReport(name: "v0", index: 2, kind: .virtual, operState: .up)
        var broadcast = PathReport(destination: address("198.18.0.255"), flags: [.reachable, .isDirect], reason: nil, link: v0)
        broadcast.delivery = .broadcast
        XCTAssertEqual(renderer.describe(broadcast), "reachable (broadcast) via virtual v0")
        let one = PathReport(destination: address("198.18.0.7"), flags: [.reachable, .isDirect], reason: nil, link: v0)
        let reports = [broadcast, one].map { ReachabilityReport(subject: .address($0.destination), paths: [$0]) }
        XCTAssertEqual(renderer.text(reports[0]) + renderer.text(reports[1]), """
            198.18.0.255: reachable (broadcast) via virtual v0
            198.18.0.7: reachable via virtual v0

            """)
        XCTAssertTrue(renderer.json(reports[0], command: "addr").serialized().contains(#""delivery":"broadcast""#))
        XCTAssertTrue(renderer.json(reports[1], command: "addr").serialized().contains(#""delivery":null"#))
    }

    /// A copy goes only where a comma stands as it stood when the value was written.
    func testAMemoWritesAgainWhereTheCommaDiffers() {
        var writer = JSONWriter()
        var memo = JSONMemo<Int>()
        writer.beginArray()
        for _ in 0..<3 { memo.write(1, to: &writer) { $0.string("one") } }
        memo.write(2, to: &writer) { $0.bool(true) }
        writer.endArray()
        XCTAssertEqual(writer.output, #"["one","one","one",true]"#)
    }
}

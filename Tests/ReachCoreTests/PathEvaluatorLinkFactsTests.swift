import XCTest
@testable import ReachCore
import ReachSystem

/// The evaluator with ModemManager's and NetworkManager's word on links (a table): a modem's
/// NET port is cellular, cellular and metered paths are expensive, --no-expensive refuses them.
final class PathEvaluatorLinkFactsTests: XCTestCase {
    private static let destination = address("203.0.113.7")
    /// A veth named like a modem's port: virtual by kernel facts alone (no sysfs asked).
    private static let wwan = LinkFacts(index: 5, name: "wwan0", hardwareType: .ether, flags: [.up, .running, .lowerUp],
                                        operState: .up, kind: "veth", carrier: true)
    private static let veth = LinkFacts(index: 6, name: "v0", hardwareType: .ether, flags: [.up, .running, .lowerUp],
                                        operState: .up, kind: "veth", carrier: true)
    private static let wwanKernel = LinkFacts(index: 7, name: "wwan1", hardwareType: .none, flags: [.up, .running, .pointToPoint],
                                              operState: .up, kind: "wwan", carrier: true)
    private static let loopback = LinkFacts(index: 1, name: "lo", hardwareType: .loopback,
                                            flags: [.up, .running, .loopback, .lowerUp], operState: .unknown, carrier: true)
    private static let lte = CellularFacts(technologies: .lte, operatorName: "TheOperator", operatorCode: "00101",
                                           registration: .roaming, signalPercent: 70, modemState: .connected)
    private static let route = RouteAnswer(family: .ipv4, type: .unicast, flags: [], outputInterface: 5,
                                           gateway: address("198.18.0.1"), preferredSource: address("198.18.0.2"))

    private func evaluate(_ link: LinkFacts, _ facts: [String: LinkServiceFacts], allowsCellular: Bool = true,
                          allowsExpensive: Bool = true) -> PathReport {
        PathEvaluator(kernel: FakeKernel(), allowsCellular: allowsCellular, allowsExpensive: allowsExpensive,
                      linkFacts: FakeLinkFacts(facts))
            .evaluate(Self.destination, route: Self.route, link: link)
    }

    func testModemPortIsCellular() {
        let report = evaluate(Self.wwan, ["wwan0": LinkServiceFacts(modem: Self.lte)])
        XCTAssertEqual(report.link, LinkReport(name: "wwan0", index: 5, kind: .cellular, operState: .up, cellular: Self.lte))
        XCTAssertTrue(report.flags.contains([.isWWAN, .transientConnection, .reachable]))
        XCTAssertEqual(report.flags.flagString, "WR -t-----")
        XCTAssertTrue(report.expensive)
        XCTAssertNil(report.reason)
    }

    func testUnclaimedLinkKeepsTheKernelsKind() {
        let report = evaluate(Self.wwan, ["wwan9": LinkServiceFacts(modem: Self.lte)])
        XCTAssertEqual(report.link?.kind, .virtual)
        XCTAssertNil(report.link?.cellular)
        XCTAssertFalse(report.expensive)
        XCTAssertEqual(report.flags.flagString, "-R -------")
    }

    /// Cellular by kernel facts alone: the cellular object is there, every field unknown.
    func testKernelCellularHasUnknownFacts() {
        let report = evaluate(Self.wwanKernel, [:])
        XCTAssertEqual(report.link?.kind, .cellular)
        XCTAssertEqual(report.link?.cellular, CellularFacts())
        XCTAssertTrue(report.expensive)
    }

    func testMeteredLinkIsExpensive() {
        for (metered, expensive) in [(Metered.yes, true), (.guessYes, true), (.no, false), (.guessNo, false), (.unknown, false)] {
            let report = evaluate(Self.veth, ["v0": LinkServiceFacts(metered: metered)])
            XCTAssertEqual(report.expensive, expensive, "\(metered.rawValue)")
            XCTAssertEqual(report.link?.kind, .virtual)
            XCTAssertNil(report.link?.cellular)
        }
    }

    func testRefusals() {
        let cellular = ["wwan0": LinkServiceFacts(modem: Self.lte)]
        XCTAssertEqual(evaluate(Self.wwan, cellular, allowsExpensive: false).reason, .expensiveRefused)
        XCTAssertEqual(evaluate(Self.wwan, cellular, allowsCellular: false).reason, .cellularRefused)
        XCTAssertEqual(evaluate(Self.wwan, cellular, allowsCellular: false, allowsExpensive: false).reason, .cellularRefused)
        let metered = ["v0": LinkServiceFacts(metered: .yes)]
        XCTAssertEqual(evaluate(Self.veth, metered, allowsExpensive: false).reason, .expensiveRefused)
        XCTAssertNil(evaluate(Self.veth, metered, allowsCellular: false).reason, "metered is not cellular")
        XCTAssertNil(evaluate(Self.veth, [:], allowsExpensive: false).reason)
        let refused = evaluate(Self.wwan, cellular, allowsExpensive: false)
        XCTAssertEqual(refused.flags.flagString, "WR -t-----", "the flags say what the path is; the reason says it is refused")
    }

    /// A tunnel over a modem's port: cellular underneath, so expensive, and IsWWAN (Apple's rule).
    func testTunnelOverModem() {
        let tun = LinkFacts(index: 9, name: "tun0", hardwareType: .none, flags: [.up, .running, .pointToPoint, .lowerUp],
                            operState: .up, kind: "tun", carrier: true)
        let report = PathEvaluator(kernel: FakeKernel(), linkFacts: FakeLinkFacts(["wwan0": LinkServiceFacts(modem: Self.lte)]))
            .evaluate(Self.destination, route: Self.route, link: tun, underlay: Self.wwan)
        XCTAssertEqual(report.link?.kind, .vpn)
        XCTAssertEqual(report.underlyingLink?.kind, .cellular)
        XCTAssertEqual(report.underlyingLink?.cellular, Self.lte)
        XCTAssertTrue(report.flags.contains(.isWWAN))
        XCTAssertTrue(report.expensive)
    }

    /// Loopback is never asked about: `reach addr 127.0.0.1` talks to no bus.
    func testLoopbackIsNotAsked() {
        let source = FakeLinkFacts([:])
        _ = PathEvaluator(kernel: FakeKernel(), linkFacts: source).evaluate(Self.destination, route: Self.route, link: Self.loopback)
        XCTAssertEqual(source.asked, [])
        _ = PathEvaluator(kernel: FakeKernel(), linkFacts: source).evaluate(Self.destination, route: Self.route, link: Self.veth)
        XCTAssertEqual(source.asked, ["v0"])
    }

    /// Watch compares generation, roaming, operator, modem state and expense; not the signal.
    func testWatchedStateComparesCellularFacts() {
        func state(_ facts: CellularFacts) -> WatchedState.Path {
            WatchedState.Path(evaluate(Self.wwan, ["wwan0": LinkServiceFacts(modem: facts)]))
        }
        let base = state(Self.lte)
        XCTAssertEqual(state(Self.lte.with(signalPercent: 20)), base, "signal strength alone is no transition")
        for changed in [Self.lte.with(technologies: .umts), Self.lte.with(registration: .home), Self.lte.with(operatorName: "Other"),
                        Self.lte.with(modemState: .connecting)] {
            XCTAssertNotEqual(state(changed), base, "\(changed)")
        }
        XCTAssertNotEqual(Self.lte.with(operatorName: .some(nil)), Self.lte)
        XCTAssertNil(Self.lte.with(operatorName: .some(nil)).operatorName)
    }
}

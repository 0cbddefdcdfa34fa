import XCTest
@testable import ReachCLI
import ReachCore
import ReachSystem

/// traceroute -e's text (traceroute.c print_probe, extension.c): the extensions in `<>`
/// after the address, the address printed again when they change within a hop.
final class TraceRendererExtensionsTests: XCTestCase {
    private let router = try! IPAddress.parse("198.18.1.1")

    private func outcome(_ index: Int, label: UInt32?) -> TraceProbeOutcome {
        let objects: [ICMPExtensionObject] =
            label.map { [.mplsLabelStack([MPLSLabelStackEntry(label: $0, trafficClass: 0, bottomOfStack: true, ttl: 1)])] } ?? []
        let answer = TraceAnswer(
            responder: router, roundTrip: .milliseconds(1), icmpType: 11, icmpCode: 0, verdict: .onTheWay, extensions: objects)
        return TraceProbeOutcome(hop: 2, index: index, answer: answer)
    }

    func testExtensionsFollowTheAddressAsTracerouteEPrintsThem() {
        var renderer = TraceRenderer(numeric: true)
        renderer.showsExtensions = true
        let text = [outcome(0, label: 16), outcome(1, label: 16), outcome(2, label: 17)].map { renderer.text($0) }.joined()
        XCTAssertEqual(
            text,
            "\n 2  198.18.1.1 <MPLS:L=16,E=0,S=1,T=1>  1.000 ms  1.000 ms 198.18.1.1 <MPLS:L=17,E=0,S=1,T=1>  1.000 ms")
    }

    func testWithoutDashEOrExtensionsTheLineIsTracerouteN() {
        var plain = TraceRenderer(numeric: true)
        XCTAssertEqual(plain.text(outcome(0, label: 16)), "\n 2  198.18.1.1  1.000 ms")
        var shown = TraceRenderer(numeric: true)
        shown.showsExtensions = true
        XCTAssertEqual(shown.text(outcome(0, label: nil)), "\n 2  198.18.1.1  1.000 ms")
    }
}

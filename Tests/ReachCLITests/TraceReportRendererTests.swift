import XCTest
@testable import ReachCLI
import ReachCore
import ReachSystem

final class TraceReportRendererTests: XCTestCase {
    private let start = RealtimeInstant(nanoseconds: 1_795_675_482_000_000_000)

    private func record(_ report: inout TraceReport, hop: Int, _ responder: String, _ microseconds: Int64, type: UInt8 = 11) {
        report[hop].record(
            responder: try! IPAddress.parse(responder), roundTrip: .nanoseconds(microseconds * 1000), icmpType: type, icmpCode: 0,
            extensions: [], endsTrace: false)
    }

    func testMatchesMtrsReportLineForLine() throws {
        // `mtr -r -n -c 3 127.0.0.1` (mtr 0.95) on a host named "vm" printed these two lines;
        // its round trips were under 50 µs, as these.
        var report = TraceReport(destination: try IPAddress.parse("127.0.0.1"))
        for microseconds: Int64 in [48, 41, 39] {
            report[1].recordSent()
            record(&report, hop: 1, "127.0.0.1", microseconds, type: 0)
        }
        let lines = TraceReportRenderer(localHostName: "vm").lines(report, start: start)
        XCTAssertEqual(lines[0], "Start: 2026-11-26T06:44:42+0000")
        XCTAssertEqual(lines[1], "HOST: vm                          Loss%   Snt   Last   Avg  Best  Wrst StDev")
        XCTAssertEqual(lines[2], "  1.|-- 127.0.0.1                  0.0%     3    0.0   0.0   0.0   0.0   0.0")
        XCTAssertEqual(lines.count, 3)
    }

    func testSilentHopsLossAndOtherResponders() throws {
        var report = TraceReport(destination: try IPAddress.parse("198.18.9.9"))
        for _ in 0..<4 {
            for hop in 1...3 { report[hop].recordSent() }
        }
        for microseconds: Int64 in [1_000, 2_000, 3_000, 4_000] { record(&report, hop: 1, "198.18.1.1", microseconds) }
        record(&report, hop: 3, "198.18.3.1", 12_345)
        record(&report, hop: 3, "198.18.3.2", 450)
        // Expected lines: Python's printf with mtr's formats (" %2d.|-- %-33s" cut at 33, " %4.1f%%"...),
        // each field written at its offset as report.c writes it: "100.0%" loses its % to Snt,
        // as mtr 0.95 prints it (TraceReportTests holds the two side by side).
        let lines = TraceReportRenderer(localHostName: "a-host-name-longer-than-the-column").lines(report, start: start)
        XCTAssertEqual(lines[1], "HOST: a-host-name-longer-than-the Loss%   Snt   Last   Avg  Best  Wrst StDev")
        XCTAssertEqual(lines[2], "  1.|-- 198.18.1.1                 0.0%     4    4.0   2.5   1.0   4.0   1.3")
        XCTAssertEqual(lines[3], "  2.|-- ???                       100.0     4    0.0   0.0   0.0   0.0   0.0")
        XCTAssertEqual(lines[4], "  3.|-- 198.18.3.2                50.0%     4    0.5   6.4   0.5  12.3   8.4")
        XCTAssertEqual(lines[5], "        198.18.3.1                       ")
    }

    func testExtensionsUnderTheirHop() throws {
        var report = TraceReport(destination: try IPAddress.parse("198.18.9.9"))
        report[1].recordSent()
        let stack = ICMPExtensionObject.mplsLabelStack([MPLSLabelStackEntry(label: 16, trafficClass: 0, bottomOfStack: true, ttl: 1)])
        let interface = ICMPExtensionObject.interfaceInformation(InterfaceInformation(role: .incoming, ifIndex: 3, mtu: 1500))
        report[1].record(
            responder: try IPAddress.parse("198.18.1.1"), roundTrip: .nanoseconds(10 * 1000), icmpType: 11, icmpCode: 0,
            extensions: [stack, interface], endsTrace: false)
        let lines = TraceReportRenderer(localHostName: "vm", showsExtensions: true).lines(report, start: start)
        XCTAssertEqual(Array(lines.suffix(2)), ["    |   +-- [MPLS: Lbl 16 TC 0 S 1 TTL 1]", "    |   +-- [INC:3,mtu=1500]"])
        let plain = TraceReportRenderer(localHostName: "vm").lines(report, start: start)
        XCTAssertEqual(plain.count, 3)
    }

    func testOneDecimalRoundsAsPrintfDoes() {
        // printf("%.1f", n / 1000.0) from glibc, for the cases where the double's error decides.
        let expected: [Int64: String] = [
            450: "0.5", 1250: "1.2", 1350: "1.4", 250: "0.2", 750: "0.8", 150: "0.1", 2050: "2.0", 66_666: "66.7",
            100_000: "100.0", 49: "0.0", 51: "0.1", 0: "0.0",
        ]
        for (thousandths, text) in expected {
            XCTAssertEqual(TraceReportRenderer.oneDecimal(thousandths: thousandths), text, "\(thousandths)")
        }
    }

    func testJSONHasEveryHopMtrLists() throws {
        var report = TraceReport(destination: try IPAddress.parse("198.18.9.9"))
        report.rounds = 2
        for hop in 1...2 {
            report[hop].recordSent()
            report[hop].recordSent()
        }
        record(&report, hop: 1, "198.18.1.1", 1_500)
        record(&report, hop: 2, "198.18.9.9", 2_000, type: 3)
        XCTAssertEqual(
            report.json(target: "far.example").serialized(),
            #"{"schema":1,"command":"trace","target":"far.example","destination":"198.18.9.9","rounds":2,"reached":true,"hops":["#
                + #"{"ttl":1,"address":"198.18.1.1","addresses":["198.18.1.1"],"sent":2,"received":1,"loss_percent":50.0,"#
                + #""rtt_ms":{"last":1.5,"avg":1.5,"best":1.5,"worst":1.5,"stdev":0.0},"icmp_type":11,"icmp_code":0,"extensions":[]},"#
                + #"{"ttl":2,"address":"198.18.9.9","addresses":["198.18.9.9"],"sent":2,"received":1,"loss_percent":50.0,"#
                + #""rtt_ms":{"last":2.0,"avg":2.0,"best":2.0,"worst":2.0,"stdev":0.0},"icmp_type":3,"icmp_code":0,"extensions":[]}]}"#)
    }

    func testExtensionsJSON() throws {
        let extensions = ICMPExtensions(objects: [
            .mplsLabelStack([MPLSLabelStackEntry(label: 16, trafficClass: 5, bottomOfStack: true, ttl: 1)]),
            .interfaceInformation(
                InterfaceInformation(role: .outgoing, address: try IPAddress.parse("2001:db8::1"), name: Array("eth0".utf8))),
            .other(classNumber: 3, classType: 1, data: [0, 0, 0xab, 0xcd]),
        ])
        XCTAssertEqual(
            extensions.json.serialized(),
            #"[{"class":1,"type":1,"kind":"mpls","labels":[{"label":16,"traffic_class":5,"bottom_of_stack":true,"ttl":1}]},"#
                + #"{"class":2,"type":134,"kind":"interface","role":"outgoing","ifindex":null,"address":"2001:db8::1","name":"eth0","#
                + #""mtu":null},{"class":3,"type":1,"kind":"other","data":"0000abcd"}]"#)
    }
}

extension TraceReportRendererTests {
    func testNamesAsMtrPrintsThemWithoutDashN() throws {
        var report = TraceReport(destination: try IPAddress.parse("198.18.9.9"))
        for hop in 1...2 { report[hop].recordSent() }
        report[1].record(
            responder: try IPAddress.parse("198.18.1.1"), roundTrip: .nanoseconds(1_000_000), icmpType: 11, icmpCode: 0,
            extensions: [], endsTrace: false)
        report[2].record(
            responder: try IPAddress.parse("198.18.9.9"), roundTrip: .nanoseconds(1_000_000), icmpType: 3, icmpCode: 3,
            extensions: [], endsTrace: false)
        let names: [String: String] = ["198.18.1.1": "r1.lab\n"]
        let renderer = TraceReportRenderer(localHostName: "vm", names: { names[$0.description] })
        let lines = renderer.lines(report, start: start)
        // The name alone (escaped: a name from the network is outside text); no name, the address.
        XCTAssertTrue(lines[2].hasPrefix("  1.|-- r1.lab\\x0a      "), lines[2])
        XCTAssertTrue(lines[3].hasPrefix("  2.|-- 198.18.9.9     "), lines[3])
    }
}

import ReachCommandLine
import ReachCore
import ReachSystem
import XCTest

@testable import ReachCLI

/// `reach trace`'s options read as traceroute 2.1.2 reads its own, the settings they make,
/// and traceroute's text.
final class TraceCommandTests: XCTestCase {
    private func read(_ words: [String]) throws -> TraceOptions {
        var options = TraceOptions()
        XCTAssertEqual(try TraceOptions.commandLine.parse(words[...], into: &options), .run, "\(words)")
        return options
    }

    private func refusal(_ words: [String]) -> String? {
        do {
            _ = try read(words).settings()
            return nil
        } catch let error as UsageError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    func testTracerouteForms() throws {
        let options = try read(["-n", "-I", "-q", "2", "-m5", "-f", "2", "-N", "4", "-p", "53", "-t", "16", "198.51.100.7", "100"])
        let settings = try options.settings()
        XCTAssertTrue(options.numeric)
        XCTAssertEqual(settings.method, .icmp)
        XCTAssertEqual(settings.probesPerHop, 2)
        XCTAssertEqual(settings.maxHops, 5)
        XCTAssertEqual(settings.firstHop, 2)
        XCTAssertEqual(settings.simultaneous, 4)
        XCTAssertEqual(settings.port, 53)
        XCTAssertEqual(settings.tos, 16)
        XCTAssertEqual(settings.packetLength, 100)
        XCTAssertEqual(try read(["-U", "h"]).method, .udp)
        XCTAssertEqual(try read(["-M", "icmp", "h"]).method, .icmp)
        XCTAssertEqual(try read(["-M", "default", "h"]).method, .udp)
        XCTAssertEqual(try read(["--flows", "4", "h"]).flows, 4)
        XCTAssertEqual(try read(["-s", "198.18.0.2", "-i", "eth0", "h"]).source, try IPAddress.parse("198.18.0.2"))
    }

    func testWaitSpecsAsTraceroute() throws {
        XCTAssertEqual(try read(["-w", "5,3,10", "h"]).waits, TraceWaits(maximum: .seconds(5), here: 3, near: 10))
        // -w MAX alone turns HERE and NEAR off (traceroute.c set_wait_specs).
        XCTAssertEqual(try read(["-w", "2", "h"]).waits, TraceWaits(maximum: .seconds(2), here: 0, near: 0))
        XCTAssertEqual(try read(["-w", "0.5/2", "h"]).waits, TraceWaits(maximum: .milliseconds(500), here: 2, near: 0))
        for wrong in ["x", "5,a", "5,3,10,1", "5,-1"] {
            var options = TraceOptions()
            XCTAssertThrowsError(try TraceOptions.commandLine.parse(["-w", wrong, "h"], into: &options), wrong)
        }
    }

    func testBadInputIsOneUsageLine() throws {
        for words in [
            ["-m", "0", "h"], ["-m", "256", "h"], ["-q", "11", "h"], ["-M", "gre", "h"], ["-p", "0", "h"], ["-t", "256", "h"],
        ] {
            var options = TraceOptions()
            XCTAssertThrowsError(try TraceOptions.commandLine.parse(words[...], into: &options), "\(words)") { error in
                XCTAssertTrue(error is UsageError, "\(words)")
            }
        }
        XCTAssertEqual(refusal(["-f", "10", "-m", "5", "h"]), "trace: first hop 10 is past max hops 5 (-f, -m)")
        XCTAssertEqual(refusal([]), "trace: a host is required")
        XCTAssertNotNil(refusal(["h", "60", "x"]))
        XCTAssertNotNil(refusal(["h", "sixty"]))
        XCTAssertNil(refusal(["h", "60"]))
    }

    func testTracerouteText() {
        let router = try! IPAddress.parse("198.18.0.1")
        let other = try! IPAddress.parse("198.18.0.5")
        let far = try! IPAddress.parse("198.51.100.7")
        func answer(_ from: IPAddress, _ micros: Int64, _ verdict: TraceVerdict = .onTheWay) -> TraceAnswer {
            TraceAnswer(responder: from, roundTrip: .nanoseconds(micros * 1000 + 400), icmpType: 11, icmpCode: 0, verdict: verdict)
        }
        var renderer = TraceRenderer(numeric: true)
        var text = TraceRenderer.header(host: "far.example", address: far, maxHops: 30, packetBytes: 60)
        let outcomes = [
            TraceProbeOutcome(hop: 1, index: 0, answer: answer(router, 215)),
            TraceProbeOutcome(hop: 1, index: 1, answer: nil),
            TraceProbeOutcome(hop: 1, index: 2, answer: answer(router, 1_002)),
            TraceProbeOutcome(hop: 2, index: 0, answer: nil),
            TraceProbeOutcome(hop: 2, index: 1, answer: answer(other, 3_000, .stopped(.hostUnreachable))),
            TraceProbeOutcome(hop: 2, index: 2, answer: answer(router, 12_345, .stopped(.fragmentationNeeded(mtu: 1400)))),
        ]
        for outcome in outcomes { text += renderer.text(outcome) }
        text += TraceRenderer.end
        XCTAssertEqual(
            text,
            """
            traceroute to far.example (198.51.100.7), 30 hops max, 60 byte packets
             1  198.18.0.1  0.215 ms *  1.002 ms
             2  * 198.18.0.5  3.000 ms !H 198.18.0.1  12.345 ms !F-1400

            """)
        var named = TraceRenderer(numeric: false, names: { $0 == router ? "gw.example" : nil })
        XCTAssertEqual(named.text(outcomes[0]), "\n 1  gw.example (198.18.0.1)  0.215 ms")
        XCTAssertEqual(
            named.text(TraceProbeOutcome(hop: 12, index: 0, answer: answer(other, 1))), "\n12  198.18.0.5 (198.18.0.5)  0.001 ms")
    }

    func testClosingLine() {
        let router = try! IPAddress.parse("198.18.0.1")
        let answered = TraceProbeOutcome(
            hop: 2, index: 0,
            answer: TraceAnswer(
                responder: router, roundTrip: .milliseconds(1), icmpType: 3, icmpCode: 1, verdict: .stopped(.hostUnreachable)))
        XCTAssertEqual(
            TraceRenderer.closing(TraceResult(outcomes: [answered], stop: .stopped(.hostUnreachable, hop: 2))),
            "trace: last answer from hop 2 (198.18.0.1); stopped at hop 2: host unreachable (!H)\n")
        XCTAssertEqual(
            TraceRenderer.closing(TraceResult(outcomes: [TraceProbeOutcome(hop: 1, index: 0, answer: nil)], stop: .maxHopsReached(1))),
            "trace: no hop answered; the destination did not answer within 1 hops\n")
    }

    func testFlowTableNamesTheFlowsWhereTheyPart() throws {
        let (r1, r2, r2b, far) = try (
            IPAddress.parse("198.18.0.1"), IPAddress.parse("198.18.1.2"), IPAddress.parse("198.18.4.2"), IPAddress.parse("198.18.3.2")
        )
        func pass(_ second: IPAddress?) -> TraceResult {
            let answers: [IPAddress?] = [r1, second, far]
            let outcomes = answers.enumerated().map { hop, responder in
                TraceProbeOutcome(
                    hop: hop + 1, index: 0,
                    answer: responder.map {
                        TraceAnswer(responder: $0, roundTrip: .milliseconds(1), icmpType: 11, icmpCode: 0, verdict: .onTheWay)
                    })
            }
            return TraceResult(outcomes: outcomes, stop: .reachedDestination(hop: 3))
        }
        let table = TraceFlowTable(results: [pass(r2), pass(r2b), pass(r2), pass(nil)])
        XCTAssertEqual(
            table.lines(), [" 1  198.18.0.1", " 2  198.18.1.2 [flows 1,3]  198.18.4.2 [flows 2]  * [flows 4]", " 3  198.18.3.2"])
        XCTAssertEqual(table.closing, "trace: 4 flows split at hop 2 over 2 routers\n")
        XCTAssertEqual(TraceFlowTable(results: [pass(r2), pass(r2)]).closing, "trace: 2 flows took one path\n")
    }
}

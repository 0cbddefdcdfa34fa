import Foundation
import ReachCore
import ReachSystem
import XCTest

@testable import ReachCLI

/// iputils ping's lines, word for word, from events and statistics.
final class PingRendererTests: XCTestCase {
    private let target = try! IPAddress.parse("198.18.0.2")
    private let router = try! IPAddress.parse("198.18.0.1")

    private func renderer(_ text: String = "198.18.0.2", size: Int = 56) -> PingRenderer {
        PingRenderer(
            targetText: text, address: try! IPAddress.parse(text.contains(".") || text.contains(":") ? text : "198.18.0.2"),
            payloadSize: size)
    }

    /// Probe `sequence` of the one target.
    private func probe(_ sequence: UInt16) -> PingProbe { PingProbe(target: 0, index: Int(sequence) - 1, sequence: sequence) }

    private func reply(_ sequence: UInt16, micro: Int64, duplicate: Bool = false, bytes: Int = 64) -> PingEvent {
        .reply(
            PingReply(
                probe: probe(sequence), from: target, ttl: 64, bytes: bytes, roundTrip: .nanoseconds(micro * 1000 + 321),
                duplicate: duplicate))
    }

    func testHeaders() throws {
        XCTAssertEqual(renderer().header(source: nil), "PING 198.18.0.2 (198.18.0.2) 56(84) bytes of data.\n")
        let v6 = PingRenderer(targetText: "::1", address: try IPAddress.parse("::1"), payloadSize: 56)
        XCTAssertEqual(v6.header(source: nil), "PING ::1(::1) 56 data bytes\n")
        // A name: iputils' ping6_run names the address as the replies do.
        let named = PingRenderer(targetText: "db.test", address: try IPAddress.parse("2001:db8::1"), payloadSize: 56)
        XCTAssertEqual(named.header(source: nil), "PING db.test(db.test (2001:db8::1)) 56 data bytes\n")
        XCTAssertEqual(
            renderer().header(source: (router, "v0")), "PING 198.18.0.2 (198.18.0.2) from 198.18.0.1 v0: 56(84) bytes of data.\n")
        XCTAssertEqual(
            renderer(size: 100).header(source: (router, "")), "PING 198.18.0.2 (198.18.0.2) from 198.18.0.1 : 100(128) bytes of data.\n")
    }

    func testDiagnosticsAreTheEventsThatSaySoAhead() {
        // The run's closure asks hasDiagnostic before building a line: the two must agree.
        let events: [PingEvent] = [
            .started(PingStart(address: target, identifier: 1, socketKind: .raw)), .failed("no socket"),
            .sent(probe(1), bytes: 64), .sendFailed(probe(2), error: Errno(rawValue: EPERM)), reply(3, micro: 5),
            .timedOut(probe(4)),
            .icmpError(
                PingICMPError(probe: probe(5), from: router, type: ICMPType(3), code: 1, info: 0, text: "Destination Host Unreachable")),
            .localError(probe(6), error: Errno(rawValue: EMSGSIZE), info: 1400),
            .unexpected(UnexpectedPacket(from: router, reason: "not ours")), .finished([PingStatistics()]),
            .statusRequested([PingStatistics()]),
        ]
        for event in events {
            XCTAssertEqual(PingRenderer.hasDiagnostic(event), renderer().diagnostic(event) != nil, "\(event)")
        }
        XCTAssertEqual(renderer().diagnostic(.localError(probe(6), error: Errno(rawValue: EMSGSIZE), info: 1400)),
            "reach: local error: message too long, mtu=1400\n")
    }

    func testStatusLineOnSIGQUITAsIputils() {
        // iputils status(): received/transmitted, loss in whole percent, then min/avg/ewma/max.
        XCTAssertEqual(renderer().status(PingStatistics()), "\r0/0 packets, 0% loss\n")
        var stats = PingStatistics()
        stats.transmitted = 3
        for micro in [40, 66, 48] as [Int64] { stats.record(roundTrip: .nanoseconds(micro * 1000 + 999)) }
        stats.received = 2
        stats.duplicates = 1
        // ewma: 40*8 = 320, + 66 - 40 = 346, + 48 - 43 = 351 -> 351 / 8 = 43 us.
        XCTAssertEqual(renderer().status(stats), "\r2/3 packets, 33% loss, min/avg/ewma/max = 0.040/0.051/0.043/0.066 ms\n")
        XCTAssertEqual(renderer(size: 8).status(stats), "\r2/3 packets, 33% loss\n", "no times below 16 data bytes")
        XCTAssertEqual(renderer().diagnostic(.statusRequested([stats])), renderer().status(stats))
        XCTAssertEqual(renderer().text(.statusRequested([stats]), realtime: nil), "", "stderr only")
        XCTAssertNil(renderer().json(.statusRequested([stats])), "not part of the JSON stream")
    }

    func testReplyErrorAndDuplicateLines() {
        let text = renderer()
        XCTAssertEqual(text.text(reply(1, micro: 401), realtime: nil), "64 bytes from 198.18.0.2: icmp_seq=1 ttl=64 time=0.401 ms\n")
        XCTAssertEqual(
            text.text(reply(1, micro: 402, duplicate: true), realtime: nil),
            "64 bytes from 198.18.0.2: icmp_seq=1 ttl=64 time=0.402 ms (DUP!)\n")
        let error = PingICMPError(
            probe: probe(2), from: router, type: ICMPv4.destinationUnreachable, code: 1, info: 0,
            text: "Destination Host Unreachable")
        XCTAssertEqual(text.text(.icmpError(error), realtime: nil), "From 198.18.0.1 icmp_seq=2 Destination Host Unreachable\n")
        XCTAssertEqual(text.text(.timedOut(probe(3)), realtime: nil), "", "iputils prints nothing for a timeout")
        XCTAssertEqual(text.text(reply(4, micro: 1, bytes: 20), realtime: nil), "20 bytes from 198.18.0.2: icmp_seq=4 ttl=64 (truncated)\n")
    }

    func testNameTargetsAndTimestamps() throws {
        let named = PingRenderer(targetText: "gateway.test", address: target, payloadSize: 56, showsTimestamps: true)
        XCTAssertEqual(
            named.text(reply(1, micro: 61), realtime: real(1_700_000_000_123_456_789)),
            "[1700000000.123456] 64 bytes from gateway.test (198.18.0.2): icmp_seq=1 ttl=64 time=0.061 ms\n")
    }

    func testSmallPayloadsHaveNoTimesAsInIputils() {
        let small = renderer(size: 8)
        XCTAssertEqual(small.text(reply(1, micro: 61, bytes: 16), realtime: nil), "16 bytes from 198.18.0.2: icmp_seq=1 ttl=64\n")
    }

    func testOutstandingAndFlood() {
        let outstanding = PingRenderer(targetText: "198.18.0.2", address: target, payloadSize: 56, reportsOutstanding: true)
        XCTAssertEqual(outstanding.text(.sent(probe(1), bytes: 64), realtime: nil), "")
        XCTAssertEqual(outstanding.text(.sent(probe(2), bytes: 64), realtime: nil), "no answer yet for icmp_seq=1\n")
        _ = outstanding.text(reply(2, micro: 50), realtime: nil)
        XCTAssertEqual(outstanding.text(.sent(probe(3), bytes: 64), realtime: nil), "", "2 was answered")
        let flood = PingRenderer(targetText: "198.18.0.2", address: target, payloadSize: 56, flood: true)
        XCTAssertEqual(flood.text(.sent(probe(1), bytes: 64), realtime: nil), ".")
        XCTAssertEqual(flood.text(reply(1, micro: 5), realtime: nil), "\u{8} \u{8}")
    }

    func testReplyTimesRoundAsIputils() {
        XCTAssertEqual(PingRenderer.milliseconds(.microseconds(401)), "0.401 ms")
        XCTAssertEqual(PingRenderer.milliseconds(.microseconds(1234)), "1.23 ms")
        XCTAssertEqual(PingRenderer.milliseconds(.microseconds(1005)), "1.01 ms")
        XCTAssertEqual(PingRenderer.milliseconds(.microseconds(12_345)), "12.3 ms")
        XCTAssertEqual(PingRenderer.milliseconds(.microseconds(99_949)), "99.9 ms")
        XCTAssertEqual(PingRenderer.milliseconds(.microseconds(99_950)), "100 ms")
        XCTAssertEqual(PingRenderer.milliseconds(.microseconds(123_456)), "123 ms")
    }

    func testLossIsPrintedWithPercentG() {
        XCTAssertEqual(PingRenderer.shortest(Double(Float(100.0 / 3))), "33.3333")
        XCTAssertEqual(PingRenderer.shortest(0), "0")
        XCTAssertEqual(PingRenderer.shortest(100), "100")
        XCTAssertEqual(PingRenderer.shortest(Double(Float(100.0 / 101))), "0.990099")
        // Against C's printf for the losses iputils can print (100 × lost / sent, as a float).
        // Floats, as iputils' loss is: exact ties and near-ties at the sixth digit included.
        var values: [Double] = [1e-5, 1.5e-5, 0.0001, 123456.5, 999999.5, 1e6, 2.5e7, 0.5, 99.99995, 12.34565, 0.1234565]
            .map { Double(Float($0)) }
        for sent in [1, 2, 3, 6, 7, 9, 11, 13, 17, 99, 101, 997, 1000, 65537, 1_000_003, 10_000_019] {
            for lost in [0, 1, 2, sent / 3, sent / 2, sent - 1, sent] where lost <= sent {
                values.append(Double(Float(Double(lost) * 100.0 / Double(sent))))
            }
        }
        for value in values {
            XCTAssertEqual(PingRenderer.shortest(value), String(format: "%g", value), "\(value)")
        }
    }

    /// The router's Host Unreachable about `probe`, as the error queue gives it.
    private func hostUnreachable(quoting probe: [UInt8]) -> QueuedError {
        QueuedError(
            origin: .icmp, errno: .hostUnreachable, type: 3, code: 1, info: 0, offender: router,
            originalPacket: probe)
    }

    func testStatisticsBlock() {
        XCTAssertEqual(
            renderer().statistics(twoRepliesAndAnError(), intervalIsZero: false),
            """

            --- 198.18.0.2 ping statistics ---
            3 packets transmitted, 2 received, +1 errors, 33.3333% packet loss, time 400ms
            rtt min/avg/max/mdev = 0.061/0.231/0.401/0.170 ms

            """)
    }

    /// --percentiles: one more line, each estimate rounded to the microsecond and held within
    /// min..max (p90 and p99 of {61, 401} µs come out at 401.6 and 401.8 µs, above the max);
    /// the JSON summary has them always.
    func testPercentilesLineAndSummary() throws {
        let engine = twoRepliesAndAnError()
        let withPercentiles = PingRenderer(targetText: "198.18.0.2", address: target, payloadSize: 56, percentiles: true)
        XCTAssertEqual(
            withPercentiles.statistics(engine, intervalIsZero: false),
            """

            --- 198.18.0.2 ping statistics ---
            3 packets transmitted, 2 received, +1 errors, 33.3333% packet loss, time 400ms
            rtt min/avg/max/mdev = 0.061/0.231/0.401/0.170 ms
            rtt p50/p90/p99 = 0.061/0.401/0.401 ms

            """)
        let summary = renderer().summary(engine, status: .success).serialized()
        XCTAssertTrue(summary.contains(#""mdev":0.17,"percentiles":{"p50":0.061,"p90":0.401,"p99":0.401}}"#), summary)
    }

    /// Replies of 401 and 61 µs to the first two of three probes, Host Unreachable for the third.
    private func twoRepliesAndAnError() -> PingEngine {
        var engine = PingEngine(
            target: target, identifier: 1, configuration: PingConfiguration(count: 3, interval: .nanoseconds(200_000_000)))
        var now: Int64 = 0
        for (sequence, micro) in [(UInt16(1), Int64(401)), (2, 61)] {
            let probe = engine.nextProbe(now: mono(now))!
            _ = engine.didSend(probe, realtime: real(now), monotonic: mono(now))
            var bytes = probe.bytes
            bytes[0] = 0
            bytes[2] = 0
            bytes[3] = 0
            let sum = ICMPCodec.checksum(bytes[...])
            bytes[2] = UInt8(sum >> 8)
            bytes[3] = UInt8(sum & 0xff)
            let arrival = now + micro * 1000
            _ = engine.receive(
                ReceivedDatagram(
                    bytes: bytes, from: target, ttl: 64, kernelTimestamp: real(arrival), monotonicTime: mono(arrival),
                    includesIPHeader: false))
            XCTAssertEqual(sequence, probe.sequence)
            now += 200_000_000
        }
        let third = engine.nextProbe(now: mono(now))!
        _ = engine.didSend(third, realtime: real(now), monotonic: mono(now))
        _ = engine.receive(hostUnreachable(quoting: third.bytes))
        return engine
    }

    /// iputils prints "pipe N" when more than one probe was out as an answer came: after the
    /// rtt line, or alone when nothing was received.
    func testPipeFollowsTheRoundTripsOrStandsAlone() {
        var engine = PingEngine(
            target: target, identifier: 1, configuration: PingConfiguration(count: 2, interval: .nanoseconds(1_000_000_000)))
        let first = engine.nextProbe(now: mono(0))!
        _ = engine.didSend(first, realtime: real(0), monotonic: mono(0))
        let second = engine.nextProbe(now: mono(1_000_000_000))!
        _ = engine.didSend(second, realtime: real(1_000_000_000), monotonic: mono(1_000_000_000))
        for probe in [first, second] { _ = engine.receive(hostUnreachable(quoting: probe.bytes)) }
        XCTAssertEqual(
            renderer().statistics(engine, intervalIsZero: false),
            """

            --- 198.18.0.2 ping statistics ---
            2 packets transmitted, 0 received, +2 errors, 100% packet loss, time 1000ms
            pipe 2

            """)
    }

    func testJSONEventsCarryTheSchema() throws {
        let text = renderer().json(reply(7, micro: 401))!.serialized()
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(object["schema"] as? Int, 1)
        XCTAssertEqual(object["command"] as? String, "ping")
        XCTAssertEqual(object["event"] as? String, "reply")
        XCTAssertEqual(object["seq"] as? Int, 7)
        // To the whole microsecond, as the summary's figures: 401.321 us is 0.401 ms.
        XCTAssertEqual(object["rtt_ms"] as? Double, 0.401)
        XCTAssertTrue(text.contains(#""rtt_ms":0.401,"#), text)
        XCTAssertEqual(object["duplicate"] as? Bool, false)
        XCTAssertNil(renderer().json(.finished([PingStatistics()])), "the summary is its own object")
    }
}

/// Instants from nanoseconds, for engines driven by hand.
private func mono(_ nanoseconds: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: nanoseconds) }
private func real(_ nanoseconds: Int64) -> RealtimeInstant { RealtimeInstant(nanoseconds: nanoseconds) }

extension TimeSpan {
    fileprivate static func microseconds(_ value: Int64) -> TimeSpan { .nanoseconds(value * 1000) }
}

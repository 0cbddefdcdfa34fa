#if canImport(Glibc)
import Glibc
#endif
import XCTest
@testable import ReachCore

/// The public API (SimplePing's model) for real, on loopback only. Needs an ICMP socket:
/// root, CAP_NET_RAW or an open ping_group_range; skips without one, except in CI.
final class PingerTests: XCTestCase {
    private func requireICMPSocket() throws {
        do {
            _ = try ICMPSocket(family: .ipv4)
        } catch {
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw error }
            throw XCTSkip("no ICMP socket here: \(error)")
        }
    }

    private func collect(_ pinger: Pinger) async -> [PingEvent] {
        var events: [PingEvent] = []
        for await event in pinger.events() { events.append(event) }
        return events
    }

    func testEventsArriveInOrderThroughTheAsyncSequence() async throws {
        try requireICMPSocket()
        for literal in ["127.0.0.1", "::1"] {
            let pinger = Pinger(hostName: literal, configuration: PingConfiguration(count: 3, intervalNanoseconds: 50_000_000))
            let events = await collect(pinger)
            guard case .started(let start) = events.first else { return XCTFail("\(events)") }
            XCTAssertEqual(start.address, try IPAddress.parse(literal))
            let kinds = events.dropFirst().map { event -> String in
                switch event {
                case .sent(let sequence, _): "sent \(sequence)"
                case .reply(let reply): "reply \(reply.sequence)"
                case .finished(let statistics): "finished \(statistics.received)"
                default: "\(event)"
                }
            }
            XCTAssertEqual(kinds, ["sent 1", "reply 1", "sent 2", "reply 2", "sent 3", "reply 3", "finished 3"])
        }
    }

    func testStopEndsTheStreamWithStatistics() async throws {
        try requireICMPSocket()
        let pinger = Pinger(hostName: "127.0.0.1", configuration: PingConfiguration(intervalNanoseconds: 20_000_000))
        var replies = 0
        var finished: PingStatistics?
        for await event in pinger.events() {
            if case .reply = event {
                replies += 1
                if replies == 3 { pinger.stop() }
            }
            if case .finished(let statistics) = event { finished = statistics }
        }
        XCTAssertGreaterThanOrEqual(finished?.received ?? 0, 3)
    }

    func testAddressStyleMismatchFails() async throws {
        let pinger = Pinger(hostName: "::1", addressStyle: .icmpv4)
        let events = await collect(pinger)
        XCTAssertEqual(events, [.failed("::1 is not an IPv4 address")])
    }
}

#if canImport(Glibc)
import Glibc
#endif
import XCTest
@testable import ReachCore
import ReachPinger
import ReachSystem
import TestSupport

/// The public API (SimplePing's model) for real, on loopback only. Needs an ICMP socket:
/// root, CAP_NET_RAW or an open ping_group_range; skips without one, except in CI.
final class PingerTests: XCTestCase {
    /// As root, a namespace of the test's own: the socket is raw there (ping_group_range is
    /// "1 0" unless opened), and a raw socket on the host's loopback reads every other
    /// process's echo replies too. Without root the socket is a datagram one, and the kernel
    /// gives it only the replies to its own identifier (net/ipv4/ping.c, ping_lookup).
    private var isolation: PrivateNetworkNamespace?

    override func setUp() {
        super.setUp()
        isolation = PrivateNetworkNamespace.make()
    }

    override func tearDown() {
        isolation?.remove()
        isolation = nil
        super.tearDown()
    }

    /// A pinger of a loopback literal whose socket sees only this test's packets.
    private func loopbackPinger(_ literal: String, _ configuration: PingConfiguration) -> Pinger {
        guard let isolation else { return Pinger(hostName: literal, configuration: configuration) }
        let open = Pinger.icmpSocket()
        return Pinger(hostName: literal, configuration: configuration, openTransport: { family in try isolation.run { try open(family) } })
    }

    private func requireICMPSocket() throws {
        do {
            _ = try ICMPSocket(family: .ipv4)
        } catch {
            try ContinuousIntegration.cannotRun("no ICMP socket here: \(error)")
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
            let pinger = loopbackPinger(literal, PingConfiguration(count: 3, interval: .nanoseconds(50_000_000)))
            let events = await collect(pinger)
            guard case .started(let start) = events.first else { return XCTFail("\(events)") }
            XCTAssertEqual(start.address, try IPAddress.parse(literal))
            let kinds = events.dropFirst().map { event -> String in
                switch event {
                case .sent(let probe, _): "sent \(probe.sequence)"
                case .reply(let reply): "reply \(reply.sequence)"
                case .finished(let statistics): "finished \(statistics[0].received)"
                default: "\(event)"
                }
            }
            XCTAssertEqual(kinds, ["sent 1", "reply 1", "sent 2", "reply 2", "sent 3", "reply 3", "finished 3"])
        }
    }

    func testStopEndsTheStreamWithStatistics() async throws {
        try requireICMPSocket()
        let pinger = loopbackPinger("127.0.0.1", PingConfiguration(interval: .nanoseconds(20_000_000)))
        var replies = 0
        var finished: PingStatistics?
        for await event in pinger.events() {
            if case .reply = event {
                replies += 1
                if replies == 3 { pinger.stop() }
            }
            if case .finished(let statistics) = event { finished = statistics.first }
        }
        XCTAssertGreaterThanOrEqual(finished?.received ?? 0, 3)
    }

    /// A name resolves, the transport the pinger was given carries the echoes, on a manual clock:
    /// no socket, no thread of the test's own.
    func testAGivenTransportCarriesTheRun() async throws {
        let clock = ManualClock()
        let transport = FakeTransport(identifier: 0x0707, clock: clock)
        let far = try IPAddress.parse("198.51.100.7")
        transport.answer = { _, packet, _ in [(Int64(250_000), echoReply(to: packet, from: far))] }
        // @unchecked: written on the pinger's thread, read after its stream has ended.
        final class Opened: @unchecked Sendable { var families: [AddressFamily] = [] }
        let opened = Opened()
        let pinger = Pinger(
            hostName: "db.test", configuration: PingConfiguration(count: 2, interval: .nanoseconds(1_000_000_000)),
            resolver: FakeResolver(["db.test": .resolved([try IPAddress.parse("198.51.100.7")])]),
            openTransport: { family in
                opened.families.append(family)
                return transport
            }, clock: clock)
        let events = await collect(pinger)
        XCTAssertEqual(opened.families, [.ipv4])
        XCTAssertEqual(events.first, .started(PingStart(address: far, identifier: 0x0707, socketKind: .datagram)))
        let replies = events.compactMap { event -> Int64? in
            if case .reply(let reply) = event { return reply.roundTrip.nanoseconds }
            return nil
        }
        XCTAssertEqual(replies, [250_000, 250_000])
        guard case .finished(let statistics) = events.last else { return XCTFail("\(events)") }
        XCTAssertEqual(statistics.map(\.received), [2])
        XCTAssertEqual(transport.sent.map(\.sequence), [1, 2])
    }

    func testAddressStyleMismatchFails() async throws {
        let pinger = Pinger(hostName: "::1", addressStyle: .icmpv4)
        let events = await collect(pinger)
        XCTAssertEqual(events, [.failed("::1 is not an IPv4 address")])
    }
}

// @unchecked: a test hands its transport to the pinger before the pinger's thread starts,
// and reads it only after the event stream has ended.
extension FakeTransport: @unchecked Sendable {}

import ReachSystem
import XCTest

@testable import ReachCore

/// mtr's rounds over the engine and TraceEngineTests' fake chain: time moves only when
/// the engine or the rounds wait.
final class TraceRoundsTests: XCTestCase {
    private let destination = try! IPAddress.parse("198.51.100.7")
    private func router(_ n: Int) -> IPAddress { try! IPAddress.parse("198.18.\(n).1") }

    private func rounds(
        _ chain: TraceEngineTests.FakeChain, count: Int?, afterRound: (TraceReport) -> Bool = { _ in true }
    ) throws -> TraceReport {
        var settings = TraceSettings()
        settings.probesPerHop = 1
        let engine = TraceEngine(settings: settings, family: .ipv4, transport: chain, clock: { chain.now })
        return try TraceRounds(count: count, interval: .seconds(1)).run(
            engine: engine, transport: chain, destination: destination, clock: { chain.now }, afterRound: afterRound)
    }

    func testCountsEveryHopOfEveryRound() throws {
        let chain = TraceEngineTests.FakeChain(hops: [router(1), nil, router(3)], destination: destination)
        let start = chain.now
        let report = try rounds(chain, count: 5)
        XCTAssertEqual(report.rounds, 5)
        XCTAssertEqual(report.listedHops.map(\.hop), [1, 2, 3, 4])
        XCTAssertEqual(report.listedHops.map(\.sent), [5, 5, 5, 5])
        XCTAssertEqual(report.listedHops.map(\.received), [5, 0, 5, 5])
        XCTAssertEqual(report[2].lossThousandths, 100_000)
        XCTAssertEqual(report[1].lossThousandths, 0)
        XCTAssertTrue(report.reachedDestination)
        // Rounds start a second apart: four intervals at least before the fifth.
        XCTAssertGreaterThanOrEqual(chain.now - start, .seconds(4))
        // Probes past the destination (traceroute's -N sends them at once) are not counted.
        XCTAssertEqual(report.hops.count, 4)
    }

    func testStopsWhenToldAfterARound() throws {
        let chain = TraceEngineTests.FakeChain(hops: [router(1)], destination: destination)
        var seen = 0
        let report = try rounds(chain, count: nil) { _ in
            seen += 1
            return seen < 3
        }
        XCTAssertEqual(report.rounds, 3)
        XCTAssertEqual(report[1].sent, 3)
    }

    func testAnUnreachableHopEndsTheList() throws {
        let chain = TraceEngineTests.FakeChain(hops: [router(1), router(2)], destination: destination)
        chain.unreachableCode = 1
        let report = try rounds(chain, count: 2)
        XCTAssertEqual(report.listedHops.map(\.hop), [1, 2, 3])
        XCTAssertTrue(report[3].endsTrace)
        XCTAssertEqual(report[3].icmpType, 3)
        XCTAssertFalse(report.reachedDestination)
    }

    func testRepliesCarryTheExtensionsTheErrorQueueReturned() throws {
        // A UDP probe of 60 bytes: the queue returns its 32 data bytes, the padding to 128,
        // then the structure (one MPLS entry: label 16, S 1, TTL 1).
        let structure = ICMPExtensions(objects: [
            .mplsLabelStack([MPLSLabelStackEntry(label: 16, trafficClass: 0, bottomOfStack: true, ttl: 1)])
        ]).encoded
        let quote = [UInt8](repeating: 0x40, count: 32) + [UInt8](repeating: 0, count: 68) + structure
        let reply = TraceReply(
            sequence: 1, responder: router(1), receivedAt: MonotonicInstant(nanoseconds: 0), icmpType: 11, icmpCode: 0,
            quote: quote, quoteOffset: 28)
        let found = ICMPExtensions(objects: reply.extensions(packetBytes: 60, family: .ipv4))
        XCTAssertEqual(found.tracerouteText, "MPLS:L=16,E=0,S=1,T=1")
        var echo = reply
        echo.icmpType = nil
        XCTAssertEqual(echo.extensions(packetBytes: 60, family: .ipv4), [])
        let plain = TraceReply(
            sequence: 1, responder: router(1), receivedAt: MonotonicInstant(nanoseconds: 0), icmpType: 11, icmpCode: 0,
            quote: Array(quote.prefix(32)), quoteOffset: 28)
        XCTAssertEqual(plain.extensions(packetBytes: 60, family: .ipv4), [])
    }
}

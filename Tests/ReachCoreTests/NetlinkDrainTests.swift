import XCTest
@testable import ReachCore
import ReachSystem

/// Queued datagrams and overruns, replayed as a multicast socket would give them.
final class FakeEventSource: NetlinkEventSource {
    enum Item {
        case datagram([UInt8])
        case overrun
    }

    var queue: [Item]
    var reads = 0
    init(_ queue: [Item]) { self.queue = queue }

    func receiveIfQueued() throws -> [UInt8]? {
        reads += 1
        guard !queue.isEmpty else { return nil }
        switch queue.removeFirst() {
        case .datagram(let bytes): return bytes
        case .overrun: throw SystemCallError("recv", .noBufferSpace)
        }
    }
}

final class NetlinkDrainTests: XCTestCase {
    /// An RTM_NEWROUTE notification with an empty rtmsg body: enough to count.
    func routeMessage(_ sequence: UInt32) -> [UInt8] {
        NetlinkMessage(type: .newRoute, flags: [], sequence: sequence, payload: [UInt8](repeating: 0, count: 12)[...]).encoded()
    }

    func testDrainsEveryQueuedDatagramAndCountsMessages() throws {
        // Two messages in one datagram, then one more.
        let source = FakeEventSource([.datagram(routeMessage(1) + routeMessage(2)), .datagram(routeMessage(3))])
        let drain = try NetlinkDrain.drain(source)
        XCTAssertEqual(drain.datagrams, 2)
        XCTAssertEqual(drain.messages, 3)
        XCTAssertFalse(drain.overrun)
        XCTAssertTrue(drain.sawChange)
        XCTAssertEqual(source.reads, 3, "reads until the queue is empty")
    }

    func testABurstOfAThousandIsOneDrain() throws {
        let source = FakeEventSource((0..<1000).map { .datagram(routeMessage(UInt32($0))) })
        let drain = try NetlinkDrain.drain(source)
        XCTAssertEqual(drain.messages, 1000)
        XCTAssertTrue(source.queue.isEmpty)
    }

    func testOverrunIsNotedAndReadingGoesOn() throws {
        let source = FakeEventSource([.datagram(routeMessage(1)), .overrun, .datagram(routeMessage(2))])
        let drain = try NetlinkDrain.drain(source)
        XCTAssertTrue(drain.overrun)
        XCTAssertEqual(drain.messages, 2)
        XCTAssertTrue(source.queue.isEmpty)
    }

    func testAnOverrunAloneStillCallsForAnEvaluation() throws {
        let drain = try NetlinkDrain.drain(FakeEventSource([.overrun]))
        XCTAssertEqual(drain.messages, 0)
        XCTAssertTrue(drain.sawChange)
    }

    func testGarbageCountsAsAChangeAndNeverThrows() throws {
        let drain = try NetlinkDrain.drain(FakeEventSource([.datagram([0xff, 0xff, 0xff, 0xff, 1, 2])]))
        XCTAssertEqual(drain.messages, 1)
    }

    func testNothingQueuedIsNoChange() throws {
        XCTAssertFalse(try NetlinkDrain.drain(FakeEventSource([])).sawChange)
    }

    func testTheLimitBoundsOneDrain() throws {
        let source = FakeEventSource((0..<10).map { .datagram(routeMessage(UInt32($0))) })
        XCTAssertEqual(try NetlinkDrain.drain(source, limit: 4).datagrams, 4)
        XCTAssertEqual(source.queue.count, 6, "the rest waits for the next wake-up")
    }

    func testOtherErrorsPropagate() {
        final class Broken: NetlinkEventSource {
            func receiveIfQueued() throws -> [UInt8]? { throw SystemCallError("recv", .invalidArgument) }
        }
        XCTAssertThrowsError(try NetlinkDrain.drain(Broken()))
    }
}

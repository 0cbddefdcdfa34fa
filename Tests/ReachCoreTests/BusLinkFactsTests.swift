import XCTest
@testable import ReachCore
import ReachSystem

/// The system-bus source against a scripted bus: what it sends, how long it waits, what it keeps.
final class BusLinkFactsTests: XCTestCase {
    private static let missing = "org.freedesktop.DBus.Error.NameHasNoOwner"

    private func source(_ bus: FakeBus?, connects: UnsafeMutablePointer<Int>? = nil) -> BusLinkFacts {
        BusLinkFacts(address: { DBusAddress(path: "/run/test/bus", isAbstract: false) }, userID: { 0 },
                     clock: { bus?.now ?? MonotonicInstant(nanoseconds: 0) }, connector: { _ in
                         connects?.pointee += 1
                         return bus
                     })
    }

    /// Everything both services are asked, answered as python-dbusmock answered it.
    private static func services(metered: UInt32 = 3) -> (DBusMessage) -> [DBusMessage] {
        { call in
            switch call.member {
            case "Hello": [FakeBus.reply([.string(":1.5")])]
            case "GetManagedObjects": [FakeBus.reply((try? DBusMessage.parse(CapturedDBus.managedObjects))?.body ?? [])]
            case "GetDeviceByIpIface":
                call.body.first?.string == "eth1" ? [FakeBus.reply([.objectPath("/org/freedesktop/NetworkManager/Devices/eth1")])]
                    : [FakeBus.error("org.freedesktop.NetworkManager.UnknownDevice")]
            case "Get": [FakeBus.reply([.variant(.uint32(metered))])]
            default: [FakeBus.error("org.freedesktop.DBus.Error.UnknownMethod")]
            }
        }
    }

    func testNoBusSocketMeansNoDBusWork() {
        var connects = 0
        let facts = source(nil, connects: &connects)
        XCTAssertEqual(facts.facts(forLink: "wwan0"), LinkServiceFacts())
        XCTAssertEqual(facts.facts(forLink: "eth0"), LinkServiceFacts())
        XCTAssertEqual(connects, 1, "tried once, not again for every link")
        XCTAssertNil(facts.signalDescriptor)
    }

    /// A bus without ModemManager or NetworkManager: one write, one round trip, nothing started.
    func testBusWithoutTheServicesIsOneRoundTrip() throws {
        let bus = FakeBus { $0.member == "Hello" ? [FakeBus.reply([.string(":1.5")])] : [FakeBus.error(Self.missing)] }
        let facts = source(bus)
        XCTAssertEqual(facts.facts(forLink: "wwan0"), LinkServiceFacts())
        XCTAssertEqual(bus.writes.count, 2, "the login and Hello, then the questions, with no wait in between")
        XCTAssertTrue(try XCTUnwrap(bus.writes.first).starts(with: Array("\0AUTH EXTERNAL 30\r\nBEGIN\r\n".utf8)))
        XCTAssertEqual(bus.calls.map { $0.member ?? "" }, ["Hello", "GetManagedObjects", "GetDeviceByIpIface"])
        XCTAssertEqual(bus.calls.map { $0.destination ?? "" },
                       ["org.freedesktop.DBus", "org.freedesktop.ModemManager1", "org.freedesktop.NetworkManager"])
        XCTAssertTrue(bus.calls.allSatisfy { $0.flags.contains(.noAutoStart) }, "never starts a service")
        XCTAssertEqual(bus.now, FakeBus.start, "nothing waited for")
    }

    func testModemAndMeteredFactsAreAskedOnceAndKept() {
        let bus = FakeBus(answer: Self.services())
        let facts = source(bus)
        let wwan = facts.facts(forLink: "wwan0")
        XCTAssertEqual(wwan.modem?.operatorName, "TheOperator")
        XCTAssertEqual(wwan.modem?.generation, .g4)
        XCTAssertNil(wwan.metered, "NetworkManager knows no device wwan0")
        let writes = bus.writes.count
        XCTAssertEqual(facts.facts(forLink: "wwan0"), wwan)
        XCTAssertEqual(bus.writes.count, writes, "kept: not asked again")

        let eth = facts.facts(forLink: "eth1")
        XCTAssertNil(eth.modem)
        XCTAssertEqual(eth.metered, .guessYes)
        XCTAssertEqual(bus.calls.map { $0.member ?? "" }, ["Hello", "GetManagedObjects", "GetDeviceByIpIface", "GetDeviceByIpIface", "Get"])
        XCTAssertEqual(bus.calls.last?.body, [.string("org.freedesktop.NetworkManager.Device"), .string("Metered")])
        XCTAssertTrue(bus.calls.allSatisfy { $0.flags.contains(.noAutoStart) })
    }

    /// A service that never answers: unknown after the patience, and no further waiting.
    func testSilentServiceIsGivenUpAfterItsPatience() {
        let bus = FakeBus { call in
            switch call.member {
            case "Hello": [FakeBus.reply([.string(":1.5")])]
            case "GetManagedObjects": []  // kill -STOP
            default: [FakeBus.error(Self.missing)]
            }
        }
        let facts = source(bus)
        XCTAssertEqual(facts.facts(forLink: "wwan0"), LinkServiceFacts())
        XCTAssertEqual(bus.now, FakeBus.start + BusLinkFacts.patience)
        XCTAssertEqual(facts.facts(forLink: "eth1"), LinkServiceFacts())
        XCTAssertEqual(bus.now, FakeBus.start + BusLinkFacts.patience, "given up: no second wait")
        XCTAssertEqual(bus.writes.count, 2, "nothing more asked")
    }

    /// A watch: subscribed before the first question; a relevant signal makes the next question ask afresh.
    func testSignalsStartANewRound() {
        let bus = FakeBus(answer: Self.services())
        let facts = source(bus)
        facts.subscribe()
        XCTAssertEqual(bus.calls.filter { $0.member == "AddMatch" }.count, BusLinkFacts.matchRules.count)
        XCTAssertTrue(bus.calls.filter { $0.member == "AddMatch" }.allSatisfy { $0.flags.contains(.noReplyExpected) })
        XCTAssertEqual(facts.signalDescriptor, -1)
        _ = facts.facts(forLink: "wwan0")
        let asked = bus.calls.count

        bus.queued += DBusMessage(kind: .signal, serial: 9, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                  member: "NameAcquired", body: [.string(":1.5")]).encoded()
        XCTAssertFalse(facts.handleSignals(), "not about a link")
        _ = facts.facts(forLink: "wwan0")
        XCTAssertEqual(bus.calls.count, asked)

        var changed = FakeBus.signal("PropertiesChanged")
        changed.serial = 10
        bus.queued += changed.encoded()
        XCTAssertTrue(facts.handleSignals())
        _ = facts.facts(forLink: "wwan0")
        XCTAssertEqual(bus.calls.dropFirst(asked).map { $0.member ?? "" }, ["GetManagedObjects", "GetDeviceByIpIface"])
    }

    /// A watch without a bus at its start finds one at a later evaluation; status tries once.
    func testWatchConnectsAgainAtEachEvaluation() {
        let bus = FakeBus(answer: Self.services())
        var present = false
        var connects = 0
        let facts = BusLinkFacts(address: { .defaultSystemBus }, userID: { 0 }, clock: { bus.now }, connector: { _ in
            connects += 1
            return present ? bus : nil
        })
        facts.subscribe()
        XCTAssertNil(facts.signalDescriptor)
        XCTAssertEqual(facts.facts(forLink: "wwan0"), LinkServiceFacts())
        present = true
        XCTAssertEqual(facts.facts(forLink: "wwan0").modem?.operatorName, "TheOperator")
        XCTAssertEqual(connects, 3)
        XCTAssertEqual(facts.signalDescriptor, -1)
        XCTAssertEqual(bus.calls.filter { $0.member == "AddMatch" }.count, BusLinkFacts.matchRules.count, "subscribed on connecting")
    }

    /// Signals that never stop coming cannot hold a question past its deadline, nor a watch's read.
    func testSignalFloodCannotHoldAQuestion() throws {
        final class FloodingBus: DBusTransport {
            var now = MonotonicInstant(nanoseconds: 0)
            var reads = 0
            var fileDescriptor: FileDescriptor.Number { 3 }
            func send(_ bytes: [UInt8], timeout: TimeSpan) -> Bool { true }
            func receiveAvailable() -> [UInt8]? {
                now += .milliseconds(10)
                reads += 1
                var signal = FakeBus.signal("PropertiesChanged")
                signal.serial = UInt32(reads)
                return (reads == 1 ? Array("OK 0123456789abcdef\r\n".utf8) : []) + signal.encoded()
            }
            func waitReadable(timeout: TimeSpan) -> Bool { true }
        }
        let bus = FloodingBus()
        let connection = DBusConnection(transport: bus, clock: { bus.now })
        let serials = try connection.start(userID: 0, calls: [FakeBus.signal("Ping")], timeout: .milliseconds(250))
        let deadline = MonotonicInstant(nanoseconds: 0) + .milliseconds(250)
        XCTAssertEqual(try connection.replies(to: serials, deadline: deadline), [:])
        XCTAssertEqual(bus.now, deadline)
        XCTAssertEqual(try connection.takeSignals().count, 25 + 64)
        XCTAssertEqual(bus.reads, 25 + 64, "at most 64 reads for a watch's turn")
    }

    /// The bus closing the connection: facts unknown, and the watch hears of it.
    func testClosedBus() {
        final class ClosingBus: DBusTransport {
            var fileDescriptor: FileDescriptor.Number { 3 }
            func send(_ bytes: [UInt8], timeout: TimeSpan) -> Bool { true }
            func receiveAvailable() -> [UInt8]? { nil }
            func waitReadable(timeout: TimeSpan) -> Bool { true }
        }
        let bus = ClosingBus()
        let facts = BusLinkFacts(
            address: { .defaultSystemBus }, userID: { 0 }, clock: { MonotonicInstant(nanoseconds: 0) }, connector: { _ in bus })
        facts.subscribe()
        XCTAssertEqual(facts.facts(forLink: "wwan0"), LinkServiceFacts())
        XCTAssertNil(facts.signalDescriptor)
        XCTAssertFalse(facts.handleSignals())
    }
}

@testable import ReachCore
import ReachSystem

/// Bytes from the system bus, as `DBusConnection` reads them: first as one whole message
/// (`DBusMessage.parse`, then what reach reads out of an answer), then as the stream after
/// the login (the SASL reply line, then messages split by their header's lengths).
/// Any result is fine; a trap, a leak or a hang is the bug. The checks below are what
/// every successful parse must keep.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBus(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = FuzzInput.bytes(start, count)
    if let message = try? DBusMessage.parse(bytes) {
        // What reach writes parses back to what it read.
        let again = try? DBusMessage.parse(message.encoded())
        precondition(again == message, "a message does not survive re-encoding")
        precondition((try? DBusType.parse(message.signature)) != nil, "a parsed body has a bad signature")
        for modem in ModemFacts.modems(inManagedObjects: message.body) {
            _ = modem.facts.generation
            _ = modem.facts.roaming
            _ = modem.facts.technologies?.members
            _ = modem.facts.modemState?.name
            precondition((modem.facts.signalPercent ?? 0) <= 100, "a signal over 100 %")
        }
        _ = message.body.first?["Metered"]?.uint32
    }
    // The same bytes as a connection's stream: never a trap, and every wait bounded.
    let connection = DBusConnection(transport: ReplayedStream(bytes), clock: { MonotonicInstant(nanoseconds: 0) })
    if (try? connection.start(userID: 0, calls: [], timeout: .zero)) != nil {
        // The clock stands still at 0: one read, then no wait.
        _ = try? connection.replies(to: [1, 2, 3], deadline: MonotonicInstant(nanoseconds: 1))
        _ = try? connection.takeSignals()
    }
    return 0
}

/// Hands the input to the connection in one read, then says nothing more.
private final class ReplayedStream: DBusTransport {
    private var pending: [UInt8]?
    init(_ bytes: [UInt8]) { pending = bytes }
    var fileDescriptor: FileDescriptor.Number { -1 }
    func send(_ bytes: [UInt8], timeout: TimeSpan) -> Bool { true }
    func receiveAvailable() -> [UInt8]? {
        defer { pending = [] }
        return pending
    }
    func waitReadable(timeout: TimeSpan) -> Bool { false }
}

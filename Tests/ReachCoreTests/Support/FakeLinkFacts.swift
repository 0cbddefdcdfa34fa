@testable import ReachCore
import ReachSystem

/// ModemManager's and NetworkManager's word on links, from a table; records what was asked.
final class FakeLinkFacts: LinkFactsSource {
    var table: [String: LinkServiceFacts]
    private(set) var asked: [String] = []

    init(_ table: [String: LinkServiceFacts]) { self.table = table }

    func facts(forLink name: String) -> LinkServiceFacts {
        asked.append(name)
        return table[name] ?? LinkServiceFacts()
    }
}

/// A message bus in a test: takes the login and calls reach writes, answers each call
/// with what `answer` returns (nothing: a service that never replies), and runs a manual
/// clock that a wait for input advances by its whole timeout when nothing is queued.
final class FakeBus: DBusTransport {
    var fileDescriptor: FileDescriptor.Number { -1 }
    private(set) var writes: [[UInt8]] = []
    private(set) var calls: [DBusMessage] = []
    var answer: (DBusMessage) -> [DBusMessage]
    var queued: [UInt8] = []
    /// Where the manual clock starts.
    static let start = MonotonicInstant(nanoseconds: 1_000_000_000)
    var now = FakeBus.start
    private var serial: UInt32 = 100

    init(answer: @escaping (DBusMessage) -> [DBusMessage]) { self.answer = answer }

    func send(_ bytes: [UInt8], timeout: TimeSpan) -> Bool {
        writes.append(bytes)
        var rest = bytes[...]
        if writes.count == 1 {
            let begin = Array("BEGIN\r\n".utf8)
            guard let end = (0...rest.count - begin.count).first(where: { Array(rest.dropFirst($0).prefix(begin.count)) == begin })
            else { return false }
            rest = rest.dropFirst(end + begin.count)
            queued += Array("OK 0123456789abcdef\r\n".utf8)
        }
        while let length = try? DBusMessage.frameLength(rest), rest.count >= length {
            guard let call = try? DBusMessage.parse(Array(rest.prefix(length))) else { return false }
            rest = rest.dropFirst(length)
            calls.append(call)
            for var reply in answer(call) {
                serial += 1
                reply.serial = serial
                if reply.kind != .signal { reply.replySerial = call.serial }
                queued += reply.encoded()
            }
        }
        return rest.isEmpty
    }

    func receiveAvailable() -> [UInt8]? {
        defer { queued = [] }
        return queued
    }

    func waitReadable(timeout: TimeSpan) -> Bool {
        if queued.isEmpty { now += timeout }
        return !queued.isEmpty
    }

    static func reply(_ body: [DBusValue]) -> DBusMessage {
        DBusMessage(kind: .methodReturn, serial: 0, replySerial: 0, body: body)
    }

    static func error(_ name: String) -> DBusMessage {
        DBusMessage(kind: .error, serial: 0, errorName: name, replySerial: 0, body: [.string("nobody here")])
    }

    static func signal(_ member: String) -> DBusMessage {
        DBusMessage(kind: .signal, serial: 0, path: "/org/freedesktop/ModemManager1/Modems/8",
                    interface: "org.freedesktop.DBus.Properties", member: member)
    }
}

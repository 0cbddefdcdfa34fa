import ReachSystem

/// The byte stream a D-Bus connection runs over; `UnixStreamSocket` is the real one, tests
/// replay captured bytes through a fake.
protocol DBusTransport: AnyObject {
    var fileDescriptor: FileDescriptor.Number { get }
    /// Writes all the bytes within the time; false when it could not.
    func send(_ bytes: [UInt8], timeout: TimeSpan) -> Bool
    /// What is queued now, without waiting: bytes, nothing, or the end of the stream (nil).
    func receiveAvailable() -> [UInt8]?
    /// Waits at most `timeout` for something to read; false when the time ran out.
    func waitReadable(timeout: TimeSpan) -> Bool
}

/// Why a connection stopped being usable: the bus closed it, refused the login, or sent
/// bytes that are not D-Bus. The facts it would have given are then unknown.
struct DBusConnectionError: Error, Equatable, CustomStringConvertible {
    var what: String
    init(_ what: String) { self.what = what }
    var description: String { "D-Bus: \(what)" }
}

/// A client connection to a message bus: the SASL EXTERNAL login (the D-Bus Specification,
/// "Authentication Protocol"), Hello, method calls matched to their replies by serial, and
/// the signals that arrive in between, kept for the caller. Nothing here waits past the
/// deadline it is given.
final class DBusConnection {
    let transport: DBusTransport
    private let clock: () -> MonotonicInstant
    private var buffer: [UInt8] = []
    private var authenticated = false
    private var lastSerial: UInt32 = 0
    private var replies: [UInt32: DBusMessage] = [:]
    /// Signals read while waiting for replies, oldest first.
    private(set) var signals: [DBusMessage] = []
    private(set) var isClosed = false

    init(transport: DBusTransport, clock: @escaping () -> MonotonicInstant) {
        self.transport = transport
        self.clock = clock
    }

    /// The login and Hello, and the first calls, in one write without waiting for the
    /// bus's "OK" (the server takes the bytes after BEGIN as messages): a bus that answers
    /// at all answers them in one round trip. The serials of `calls`.
    func start(userID: UInt32, calls: [DBusMessage], timeout: TimeSpan) throws(DBusConnectionError) -> [UInt32] {
        var bytes = DBusAuthentication.request(userID: userID)
        let hello = DBusMessage.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                     interface: "org.freedesktop.DBus", member: "Hello")
        var serials: [UInt32] = []
        for (index, call) in ([hello] + calls).enumerated() {
            let (serial, encoded) = numbered(call)
            if index > 0 { serials.append(serial) }
            bytes += encoded
        }
        try write(bytes, timeout: timeout)
        return serials
    }

    /// Sends more calls; their serials.
    func send(_ calls: [DBusMessage], timeout: TimeSpan) throws(DBusConnectionError) -> [UInt32] {
        var bytes: [UInt8] = []
        var serials: [UInt32] = []
        for call in calls {
            let (serial, encoded) = numbered(call)
            serials.append(serial)
            bytes += encoded
        }
        try write(bytes, timeout: timeout)
        return serials
    }

    /// The replies (method returns and errors) to `serials` that arrive before `deadline`;
    /// a serial with no reply by then is missing.
    func replies(to serials: [UInt32], deadline: MonotonicInstant) throws(DBusConnectionError) -> [UInt32: DBusMessage] {
        while !serials.allSatisfy({ replies[$0] != nil }) {
            let left = deadline.remaining(from: clock())
            guard left > .zero else { break }  // checked between reads too: a flood of signals cannot hold us
            if try readAvailable() { continue }
            guard transport.waitReadable(timeout: left) else { break }
        }
        var found: [UInt32: DBusMessage] = [:]
        for serial in serials { found[serial] = replies.removeValue(forKey: serial) }
        // A reply that came too late for an earlier question is of no use to anyone now.
        replies = [:]
        return found
    }

    /// Reads what is queued (never waits; at most 64 reads, so that a flood of signals
    /// leaves the rest for the next poll) and hands over the signals read so far.
    func takeSignals() throws(DBusConnectionError) -> [DBusMessage] {
        for _ in 0..<64 {
            guard try readAvailable() else { break }
        }
        defer { signals = [] }
        return signals
    }

    private func numbered(_ call: DBusMessage) -> (UInt32, [UInt8]) {
        var call = call
        lastSerial = lastSerial == UInt32.max ? 1 : lastSerial + 1
        call.serial = lastSerial
        return (lastSerial, call.encoded())
    }

    private func write(_ bytes: [UInt8], timeout: TimeSpan) throws(DBusConnectionError) {
        guard !isClosed else { throw DBusConnectionError("connection closed") }
        guard transport.send(bytes, timeout: timeout) else {
            isClosed = true
            throw DBusConnectionError("the bus did not take the request")
        }
    }

    /// One read of what is queued, split into messages; false when nothing was queued.
    private func readAvailable() throws(DBusConnectionError) -> Bool {
        guard !isClosed else { throw DBusConnectionError("connection closed") }
        guard let bytes = transport.receiveAvailable() else {
            isClosed = true
            throw DBusConnectionError("the bus closed the connection")
        }
        if bytes.isEmpty { return false }
        buffer += bytes
        do {
            try consumeBuffer()
        } catch {
            isClosed = true
            throw error
        }
        return true
    }

    private func consumeBuffer() throws(DBusConnectionError) {
        if !authenticated {
            guard let answer = try DBusAuthentication.reply(in: buffer) else { return }
            guard answer.accepted else { throw DBusConnectionError("the bus refused the login") }
            buffer.removeFirst(answer.consumed)
            authenticated = true
        }
        while true {
            let length: Int?
            do { length = try DBusMessage.frameLength(buffer[...]) } catch { throw DBusConnectionError(error.description) }
            guard let length, buffer.count >= length else { return }
            let frame = Array(buffer[0..<length])
            buffer.removeFirst(length)
            let message: DBusMessage
            do { message = try DBusMessage.parse(frame) } catch { throw DBusConnectionError(error.description) }
            switch message.kind {
            case .methodReturn, .error:
                if let serial = message.replySerial { replies[serial] = message }
            case .signal:
                signals.append(message)
            default:
                break  // a call to us: reach exports nothing, and the bus answers for it
            }
        }
    }
}

/// The SASL exchange a client starts with (the D-Bus Specification, "Authentication
/// Protocol"): a NUL byte, `AUTH EXTERNAL` with the user ID's decimal digits in hex, and
/// `BEGIN`, sent together; the server's one line, `OK <guid>` or `REJECTED <mechanisms>`.
enum DBusAuthentication {
    /// The longest reply line taken before giving up on the peer.
    static let maximumLine = 512

    static func request(userID: UInt32) -> [UInt8] {
        let digits = Array(String(userID).utf8)
        var hex = ""
        for byte in digits {
            hex += String(byte >> 4, radix: 16) + String(byte & 0xf, radix: 16)
        }
        return [0] + Array("AUTH EXTERNAL \(hex)\r\nBEGIN\r\n".utf8)
    }

    /// The server's answer once its line is complete (nil before): accepted or not, and
    /// the bytes it took.
    static func reply(in bytes: [UInt8]) throws(DBusConnectionError) -> (accepted: Bool, consumed: Int)? {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
            if bytes.count > maximumLine { throw DBusConnectionError("no SASL reply line in \(bytes.count) bytes") }
            return nil
        }
        let line = bytes[0..<newline]
        let accepted = line.starts(with: Array("OK ".utf8)) && line.last == UInt8(ascii: "\r")
        return (accepted, newline + 1)
    }
}

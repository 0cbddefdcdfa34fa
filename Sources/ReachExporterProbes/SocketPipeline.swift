import NIOCore
import NIOEmbedded
import ReachCore
import ReachSystem

/// SwiftNIO's handlers (TLS, HTTP/2) over a connection the probe opened itself: they run
/// in an `EmbeddedChannel`, fed from and flushed to the blocking socket on the probe's
/// thread, so that a probe speaks through them as it speaks plain TCP, within its deadline
/// and with no event loop of its own. The exporter's probes reach SwiftNIO this one way:
/// TLSStream's handshake and records, and HTTP/2 with TLS or without (HTTP2Connection).
final class SocketPipeline {
    /// The socket's bytes, or TLS's below a pipeline built on a TLSStream's.
    let connection: any ByteStream
    let channel: EmbeddedChannel

    /// A pipeline of `handlers` on `connection`, made active as a channel connected to
    /// `address` port `port`: NIOSSL checks a certificate against that address when the
    /// server is named by it, and a handler writes its first bytes (a ClientHello, HTTP/2's
    /// preface) on becoming active.
    init(over connection: any ByteStream, to address: IPAddress, port: UInt16, handlers: [any ChannelHandler]) throws {
        let channel = EmbeddedChannel()
        do {
            try channel.pipeline.syncOperations.addHandlers(handlers)
            let remote = try SocketAddress(
                ipAddress: address.description.split(separator: "%").first.map(String.init) ?? "", port: Int(port))
            channel.remoteAddress = remote
            try channel.connect(to: remote).wait()
        } catch {
            Self.discard(channel)
            throw error
        }
        (self.connection, self.channel) = (connection, channel)
    }

    // The channel's pipeline and handlers hold each other until it is closed.
    deinit {
        Self.discard(channel)
    }

    /// Closes without waiting: NIOSSL waits for the peer's close_notify until its shutdown
    /// timeout, on the embedded loop's own clock, which only moves when told to.
    private static func discard(_ channel: EmbeddedChannel) {
        channel.close(promise: nil)
        channel.embeddedEventLoop.advanceTime(by: .hours(1))
    }

    /// Adds a handler at the pipeline's top (HTTP/2's above TLS), whose values `send` and
    /// `receive` then carry.
    func add(_ handler: any ChannelHandler) throws {
        try channel.pipeline.syncOperations.addHandler(handler)
    }

    /// Sends the handlers' pending bytes; false when the deadline came first.
    func flush(deadline: MonotonicInstant) throws -> Bool {
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            guard try connection.sendAll(Array(buffer.readableBytesView), deadline: deadline) else { return false }
        }
        return true
    }

    /// Hands bytes read from the socket up the pipeline; throws what a handler refused.
    func deliver(_ bytes: [UInt8]) throws {
        try channel.writeInbound(channel.allocator.buffer(bytes: bytes))
    }

    /// Writes `value` down the pipeline and sends what comes out of it; false when the
    /// deadline came first.
    func send<Value>(_ value: Value, deadline: MonotonicInstant) throws -> Bool {
        channel.writeAndFlush(value, promise: nil)
        return try flush(deadline: deadline)
    }

    enum Received<Value> {
        case value(Value)
        /// No value will come: the socket's end, its reset (a record that does not decrypt,
        /// an alert, a handler refusing the bytes), or the deadline.
        case ended(TCPConnection.ReceiveOutcome)
    }

    /// The next value the pipeline's top hands up, reading the socket as needed.
    func receive<Value>(_ type: Value.Type, deadline: MonotonicInstant) throws -> Received<Value> {
        while true {
            if let value = try channel.readInbound(as: Value.self) { return .value(value) }
            guard channel.isActive else { return .ended(.closed) }
            let outcome = try connection.receive(maximum: 16 * 1024, deadline: deadline)
            guard case .data(let bytes) = outcome else { return .ended(outcome) }
            do {
                try deliver(bytes)
            } catch {
                Self.discard(channel)
                return .ended(.reset)
            }
            // What the bytes called for (a SETTINGS ack, a TLS key update) goes out at once.
            _ = try flush(deadline: deadline)
        }
    }
}

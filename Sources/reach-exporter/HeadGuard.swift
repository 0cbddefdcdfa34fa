import NIOConcurrencyHelpers
import NIOCore

/// Sits before NIOHTTP1's decoder and bounds what a client may do before its request's head
/// is complete: at most `maximumBytes` of request line and headers (else 431), and all of
/// it within `timeout` of the connection opening or the last answer (else 408; an idle
/// keep-alive connection is closed without a word). A client sending a byte a second, or
/// headers without end, holds a connection for `timeout` at most and a few KiB of memory.
final class HeadGuard: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Sent down the pipeline by the request handler once an answer has been written:
    /// the next request's head is awaited from now on.
    struct AnswerSent {}

    private let maximumBytes: Int
    private let timeout: TimeAmount
    private var waitingForHead = true
    private var received = 0
    /// The last bytes seen, to find "\r\n\r\n" across reads.
    private var tail: UInt32 = 0
    private var timer: Scheduled<Void>?
    private var refused = false

    init(maximumBytes: Int, timeout: TimeAmount) {
        self.maximumBytes = maximumBytes
        self.timeout = timeout
    }

    func channelActive(context: ChannelHandlerContext) {
        armTimer(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        let buffer = unwrapInboundIn(data)
        if waitingForHead {
            var complete = false
            for byte in buffer.readableBytesView {
                received += 1
                tail = tail << 8 | UInt32(byte)
                if tail == 0x0D0A_0D0A {
                    complete = true
                    break
                }
            }
            // Counted up to the head's end, whether that end came in this read or not: a
            // long head that arrives in one read is as long as one that trickles in.
            if received > maximumBytes {
                refuse(
                    context: context, status: "431 Request Header Fields Too Large",
                    reason: "request head longer than \(maximumBytes) bytes")
                return
            }
            if complete {
                waitingForHead = false
                timer?.cancel()
                timer = nil
            }
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if event is AnswerSent {
            waitingForHead = true
            received = 0
            tail = 0
            armTimer(context: context)
            promise?.succeed(())
            return
        }
        context.triggerUserOutboundEvent(event, promise: promise)
    }

    private func armTimer(context: ChannelHandlerContext) {
        timer?.cancel()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: timeout) {
            let (guardHandler, context) = bound.value
            guard guardHandler.waitingForHead, !guardHandler.refused else { return }
            if guardHandler.received == 0 {
                guardHandler.refused = true
                context.close(promise: nil)
            } else {
                guardHandler.refuse(context: context, status: "408 Request Timeout", reason: "request head not complete in time")
            }
        }
    }

    /// Answers below the HTTP codec (whose parser state is no longer of use) and closes.
    private func refuse(context: ChannelHandlerContext, status: String, reason: String) {
        refused = true
        timer?.cancel()
        let body = reason + "\n"
        let text = "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + body
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in bound.value.close(promise: nil) }
    }
}

/// A count with a ceiling, shared by the event loop and the probe threads: connections open
/// at once (beyond, a new one is closed as soon as it is accepted), and probes admitted
/// (beyond, 503).
final class Admission: Sendable {
    private let open = NIOLockedValueBox(0)
    let maximum: Int

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Whether one more may come in; counts it when so.
    func admit() -> Bool {
        open.withLockedValue { count in
            guard count < maximum else { return false }
            count += 1
            return true
        }
    }

    func release() {
        open.withLockedValue { $0 -= 1 }
    }
}

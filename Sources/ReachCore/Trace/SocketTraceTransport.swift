import ReachSystem

/// The transport of `reach trace` for UDP and ICMP: one socket per flow (its source port
/// or ICMP identifier is the flow), the hop limit set before each send, answers read from
/// the error queue (IP_RECVERR) and, for ICMP, echo replies (and a raw socket's errors).
public final class SocketTraceTransport: TraceTransport {
    public let socket: ICMPSocket
    public let codec: TraceProbeCodec
    public let target: IPAddress
    private let port: UInt16
    private var hopLimit: Int?

    /// Opens the flow's socket: UDP, or ICMP by `reach ping`'s rules (datagram, else raw
    /// with CAP_NET_RAW). ICMPPermissionDenied when ICMP is not allowed either way.
    public init(settings: TraceSettings, target: IPAddress) throws {
        self.target = target
        port = settings.destinationPort
        codec = TraceProbeCodec(
            method: settings.method, family: target.family, transportLength: settings.transportLength(for: target.family))
        var options = ICMPSocketOptions(interface: settings.interface, sourceAddress: settings.source)
        options.trafficClass = settings.tos
        switch settings.method {
        case .udp: socket = try ICMPSocket(udpFamily: target.family, options: options)
        case .icmp: socket = try ICMPSocket(family: target.family, options: options)
        case .tcp: socket = try ICMPSocket(tcpToward: target, options: options)
        }
    }

    public func send(sequence: UInt16, hopLimit: Int) throws -> Errno? {
        if self.hopLimit != hopLimit {
            try socket.setHopLimit(hopLimit)
            self.hopLimit = hopLimit
        }
        let packet: [UInt8]
        switch codec.method {
        case .udp: packet = codec.udpPayload(sequence: sequence)
        case .icmp: packet = codec.echoRequest(identifier: socket.identifier, sequence: sequence)
        case .tcp:
            guard let source = socket.localAddress else { throw SystemCallError("getsockname", Errno(rawValue: 22)) }
            packet = codec.tcpSYN(
                sequence: sequence, sourcePort: socket.identifier, destinationPort: port, source: source, destination: target)
        }
        let port = codec.method == .udp ? self.port : 0
        // An ICMP error that came since the last wait is pending on the socket (sk_err), and a
        // send returns it instead of sending (sock_alloc_send_pskb, net/core/sock.c), clearing
        // it: the probe is sent again. A refusal of the route itself comes back twice.
        guard try socket.send(packet, to: target, port: port, beforeSend: {}) != nil else { return nil }
        return try socket.send(packet, to: target, port: port) {}
    }

    public func wait(until deadline: MonotonicInstant?, _ deliver: (TraceReply) -> Void) throws -> Bool {
        var interrupted = false
        try socket.wait(until: deadline) { input in
            switch input {
            case .queuedError(let queued):
                if let reply = codec.reply(to: queued, at: Self.monotonic(queued.kernelTimestamp), target: target) { deliver(reply) }
            case .datagram(let datagram):
                if let reply = reply(to: datagram) { deliver(reply) }
            case .interrupted: interrupted = true
            case .statusRequested: break
            }
        }
        return !interrupted
    }

    /// When the kernel received an answer, on the monotonic clock the send times are read
    /// from: now, less how long ago its SO_TIMESTAMPNS stamp says it came (the time the
    /// answer waited behind the other probes' sends is not its round trip).
    static func monotonic(_ stamp: RealtimeInstant?) -> MonotonicInstant {
        let now = MonotonicInstant.now()
        guard let stamp else { return now }
        return now - max(.zero, RealtimeInstant.now() - stamp)
    }

    private func reply(to datagram: ReceivedDatagram) -> TraceReply? {
        var datagram = datagram
        datagram.monotonicTime = Self.monotonic(datagram.kernelTimestamp)
        switch codec.method {
        case .udp: return nil
        case .icmp: return codec.reply(to: datagram, identifier: socket.identifier, checksIdentifier: socket.kind == .raw, target: target)
        case .tcp: return codec.tcpReply(to: datagram, sourcePort: socket.identifier, destinationPort: port, target: target)
        }
    }

    /// Makes a wait in progress return (Ctrl-C).
    public func interrupt() { socket.interrupt() }
}

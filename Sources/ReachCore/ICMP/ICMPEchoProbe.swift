import ReachSystem

/// One echo check on the ping engine, for `status --probe icmp`, `watch --probe icmp` and
/// the exporter's icmp module: up to `echoes` requests within the deadline, passing on the
/// first good reply. Three for the command line (RealReachability's check: one lost packet
/// should not read as "limited"), one for the exporter (blackbox_exporter's
/// `prober/icmp.go` sends one).
public struct ICMPEchoProbe: Sendable {
    public var echoes: Int
    /// Each request's ICMP data bytes (iputils -s; blackbox_exporter's payload_size).
    public var payloadSize: Int
    /// The caller's option that allows a broadcast, which a refused send names (`-b`).
    public var broadcastOption: String?

    public init(echoes: Int, payloadSize: Int = 56, broadcastOption: String? = nil) {
        self.echoes = max(1, echoes)
        self.payloadSize = max(0, payloadSize)
        self.broadcastOption = broadcastOption
    }

    /// What came back by the deadline.
    public struct Outcome: Sendable {
        /// The first reply with a good checksum; nil when none came.
        public var reply: PingReply?
        /// The last failure seen, as iputils words it, when no reply came.
        public var failure: String?
        /// The last refusal of sendto that is a verdict about the path (no route, a reject
        /// route, a firewall's EPERM).
        public var refusal: Errno?
    }

    /// Runs the check to `address` through `socket`, to its first reply or `deadline`.
    public func run(to address: IPAddress, through socket: ICMPSocket, deadline: MonotonicInstant) throws -> Outcome {
        let remaining = max(TimeSpan.milliseconds(1), deadline.remaining(from: .now()))
        // With a deadline the engine probes until `count` replies (iputils -w): one echo is one
        // request when the interval is the whole time.
        let interval = echoes == 1 ? remaining : min(.seconds(1), TimeSpan(nanoseconds: remaining.nanoseconds / Int64(echoes)))
        let configuration = PingConfiguration(
            count: echoes, interval: interval, timeout: remaining, deadline: remaining, payloadSize: payloadSize)
        var loop = PingLoop(
            engine: PingEngine(target: address, identifier: socket.identifier, configuration: configuration),
            transport: socket, clock: SystemClock())
        var outcome = Outcome()
        try loop.run { event in
            switch event {
            case .reply(let reply) where outcome.reply == nil && !reply.corrupted:
                outcome.reply = reply
                socket.interrupt()  // one reply proves the path: stop here
            case .icmpError(let error):
                outcome.failure = "From \(error.from): \(error.text)"
            case .sendFailed(_, let errno):
                outcome.failure = "\(address): \(AccessRefusal.describe(errno, toward: address, broadcastOption: broadcastOption))"
                outcome.refusal = errno
            case .localError(_, let errno, _):
                outcome.failure = "\(address): \(errno)"
            default:
                break
            }
        }
        return outcome
    }
}

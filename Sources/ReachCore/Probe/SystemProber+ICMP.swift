extension SystemProber {
    /// Up to three echo requests within the deadline (one lost packet should not read as
    /// "limited"), passing on the first reply: RealReachability's check, on the ICMP engine.
    /// Lack of ICMP permission is thrown, so that it never reads as a failed probe.
    func icmp(_ address: IPAddress, deadline: Int64) throws -> (ProbeResult.Outcome, String, String?) {
        let socket = try ICMPSocket(family: address.family)
        let remaining = max(1, deadline - MonotonicClock.nowMilliseconds()) * 1_000_000
        let configuration = PingConfiguration(
            count: 3, intervalNanoseconds: min(1_000_000_000, remaining / 3),
            timeoutNanoseconds: remaining, deadlineNanoseconds: remaining)
        var loop = PingLoop(
            engine: PingEngine(target: address, identifier: socket.identifier, configuration: configuration),
            transport: socket, clock: SystemClock())
        var passed: String?
        var lastFailure: String?
        try loop.run { event in
            switch event {
            case .reply(let reply) where passed == nil:
                passed = "echo reply from \(reply.from) in \(Self.milliseconds(reply.roundTripNanoseconds)) ms"
                socket.interrupt() // one reply proves the path: stop here
            case .icmpError(let error):
                lastFailure = "From \(error.from): \(error.text)"
            case .sendFailed(_, let errno), .localError(_, let errno, _):
                lastFailure = "\(address): \(errno)"
            default:
                break
            }
        }
        if let passed { return (.passed, passed, nil) }
        return (.failed, lastFailure ?? "no echo reply from \(address) (timed out)", nil)
    }

    /// "0.045": three decimals, as ping prints round trips.
    static func milliseconds(_ nanoseconds: Int64) -> String {
        let microseconds = max(0, nanoseconds) / 1000
        let fraction = String(microseconds % 1000)
        return "\(microseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

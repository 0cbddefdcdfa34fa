import ReachSystem

extension NetworkProbeRunner {
    /// Up to three echo requests within the deadline (one lost packet should not read as
    /// "limited"), passing on the first reply: RealReachability's check, on the ICMP engine.
    /// Lack of ICMP permission is thrown, so that it never reads as a failed probe.
    func icmp(_ address: IPAddress, socket: ICMPSocket, deadline: Int64) throws -> (ProbeResult.Outcome, String, String?) {
        let remaining = max(1, deadline - SystemClock.monotonicMilliseconds()) * 1_000_000
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
                let roundTrip = MillisecondText.threeDecimals(microseconds: reply.roundTripNanoseconds / 1000)
                passed = "echo reply from \(reply.from) in \(roundTrip) ms"
                socket.interrupt() // one reply proves the path: stop here
            case .icmpError(let error):
                lastFailure = "From \(error.from): \(error.text)"
            case .sendFailed(_, let errno):
                lastFailure = "\(address): \(UnreachableReason.describe(refusal: errno))"
            case .localError(_, let errno, _):
                lastFailure = "\(address): \(errno)"
            default:
                break
            }
        }
        if let passed { return (.passed, passed, nil) }
        return (.failed, lastFailure ?? "no echo reply from \(address) (timed out)", nil)
    }
}

/// The ICMP sockets an icmp probe may need, opened before its host is resolved: one for the
/// family of a literal, else one per family allowed (-4/-6). A socket that could not be
/// opened keeps its error, thrown only if the host resolves to that family.
struct ICMPSockets {
    private var ipv4: Result<ICMPSocket, Error>?
    private var ipv6: Result<ICMPSocket, Error>?

    init(for spec: ProbeSpec, family: AddressFamily?) {
        guard case .icmp(let host) = spec else { return }
        let literal = try? IPAddress.parse(host).resolvingZone()
        for candidate in AddressFamily.allCases where (literal?.family ?? family ?? candidate) == candidate {
            let opened = Result<ICMPSocket, Error> { try ICMPSocket(family: candidate) }
            if candidate == .ipv4 { ipv4 = opened } else { ipv6 = opened }
        }
    }

    func socket(for family: AddressFamily) throws -> ICMPSocket {
        guard let opened = family == .ipv4 ? ipv4 : ipv6 else {
            throw SystemCallError("socket (ICMP, \(family.label), not opened before resolving)", .addressFamilyNotSupported)
        }
        return try opened.get()
    }
}

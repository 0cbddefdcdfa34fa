import ReachSystem

extension NetworkProbeRunner {
    /// Up to three echo requests within the deadline, passing on the first reply
    /// (`ICMPEchoProbe`). Lack of ICMP permission is thrown, so that it never reads as a
    /// failed probe.
    func icmp(_ address: IPAddress, socket: ICMPSocket, deadline: MonotonicInstant) throws -> (ProbeResult.Outcome, String, String?) {
        let outcome = try ICMPEchoProbe(echoes: 3, broadcastOption: broadcastOption).run(
            to: address, through: socket, deadline: deadline)
        if let reply = outcome.reply {
            let roundTrip = MillisecondText.threeDecimals(microseconds: reply.roundTrip.microseconds)
            return (.passed, "echo reply from \(reply.from) in \(roundTrip) ms", nil)
        }
        return (.failed, outcome.failure ?? "no echo reply from \(address) (timed out)", nil)
    }

    /// The ICMP sockets an icmp probe may need, opened before its host is resolved: one for
    /// the family of a literal, else one per family allowed (-4/-6). A socket that could not
    /// be opened keeps its error, thrown only if the host resolves to that family.
    static func icmpSockets(for spec: ProbeSpec, family: AddressFamily?) -> ICMPSocketGroup? {
        guard case .icmp(let host) = spec else { return nil }
        let literal = try? IPAddress.parse(host).resolvingZone()
        let families = AddressFamily.allCases.filter { (literal?.family ?? family ?? $0) == $0 }
        return ICMPSocketGroup(keepingFailures: families)
    }
}

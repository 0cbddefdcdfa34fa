import ReachSystem

/// `preferred_ip_protocol: both`, reach's own (blackbox_exporter probes one family, and
/// its chooseProtocol in `prober/utils.go` picks which): every family the name resolves to,
/// probed at once, each to the same deadline. The probe succeeds only when each of them did.
extension ExporterProber {
    /// The first address of each family `host` resolves to, IPv6's first (blackbox_exporter's
    /// own preference); a literal alone; empty when the name has none.
    func resolveEveryFamily(_ host: String, deadline: MonotonicInstant) throws -> [IPAddress] {
        Self.firstOfEachFamily(try addresses(of: host, family: nil, deadline: deadline) ?? [])
    }

    static func firstOfEachFamily(_ candidates: [IPAddress]) -> [IPAddress] {
        [AddressFamily.ipv6, .ipv4].compactMap { family in candidates.first { $0.family == family } }
    }

    /// Each address probed by the module's prober held to its family (a redirect or a proxy
    /// is resolved in that family alone), each but the last on a thread of its own, the last
    /// on this one; then one measurement of them all (`ProbeMeasurement.combined`).
    func probeEveryFamily(
        _ addresses: [IPAddress], _ request: ExporterRouter.ProbeRequest, deadline: MonotonicInstant, from blank: ProbeMeasurement
    ) throws -> ProbeMeasurement {
        guard let last = addresses.last else {
            var measurement = blank
            measurement.fail(.nameNotResolved)
            return measurement
        }
        let jobs = try addresses.dropLast().map { address in
            try BackgroundJob { Result { try probeFamily(address, request, deadline: deadline, from: blank) } }
        }
        let own = try probeFamily(last, request, deadline: deadline, from: blank)
        var outcomes: [ProbeMeasurement] = []
        for (job, address) in zip(jobs, addresses) {
            // Each probe ends by the deadline; a tenth of a second after it covers its last
            // steps, well inside the scrape's own margin (--timeout-offset, 0.5 s). A job still
            // running then is left to finish on its own, its family timed out.
            if let result = try job.wait(timeout: deadline.remaining(from: .now()) + .milliseconds(100)) {
                outcomes.append(try result.get())
            } else {
                var late = blank
                late.address = address
                late.fail(.timedOut)
                outcomes.append(late)
            }
        }
        return .combined(outcomes + [own]) ?? own
    }

    /// One family's probe: the module's prober to `address`, with its settings held to that family.
    private func probeFamily(
        _ address: IPAddress, _ request: ExporterRouter.ProbeRequest, deadline: MonotonicInstant, from blank: ProbeMeasurement
    ) throws -> ProbeMeasurement {
        let start = MonotonicInstant.now()
        var held = request
        held.module.holdAddressChoice(to: address.family)
        var measurement = blank
        measurement.address = address
        try run(address, held, deadline: deadline, into: &measurement)
        measurement.duration = MonotonicInstant.now() - start
        return measurement
    }
}

extension ExporterModule {
    /// The module's own prober's address choice made `family` only, without fallback.
    mutating func holdAddressChoice(to family: AddressFamily) {
        var address = self.address
        address.preferredIPProtocol = family == .ipv4 ? .ip4 : .ip6
        address.ipProtocolFallback = false
        switch prober {
        case .http: http.address = address
        case .tcp: tcp.address = address
        case .icmp, .route: icmp.address = address
        case .dns: dns.address = address
        case .grpc: grpc.address = address
        case .trace: trace.address = address
        }
    }
}

extension ProbeMeasurement {
    /// How one family's probe of a `both` module ended (reach_probe_ip_protocol_success).
    public struct FamilyOutcome: Sendable, Equatable {
        public var address: IPAddress
        public var success: Bool
        public var failure: ProbeFailureReason?
        public var duration: TimeSpan

        /// The family as `preferred_ip_protocol` names it, the series' `ip_protocol` label.
        public var ipProtocol: ExporterModule.IPProtocol { address.family == .ipv4 ? .ip4 : .ip6 }
    }

    /// One measurement of a `both` probe from each family's, in the order probed: success
    /// only when every family succeeded; the other series those of the first family that
    /// failed, else of the first; and each family's outcome. Nil for no outcome.
    static func combined(_ outcomes: [ProbeMeasurement]) -> ProbeMeasurement? {
        guard var chosen = outcomes.first(where: { !$0.success }) ?? outcomes.first else { return nil }
        chosen.families = outcomes.compactMap { outcome in
            outcome.address.map {
                FamilyOutcome(address: $0, success: outcome.success, failure: outcome.failure, duration: outcome.duration)
            }
        }
        return chosen
    }
}

import ReachCore
import ReachSystem

/// Runs one `/probe` on the calling thread, to its verdict within the request's timeout,
/// over ReachCore's probes, the ones `reach status --probe` runs: the resolver, the ICMP
/// engine and socket (datagram first, raw only with CAP_NET_RAW permitted, raised around
/// socket()), `TCPProbe`, `HTTPProbe` and the live `PathEvaluator`. What is the exporter's
/// own is blackbox_exporter's shape around them: the address family chosen as it chooses,
/// redirects followed as its http prober does, the phases and results kept for the
/// metrics. A probe that cannot run at all (no ICMP permission, a netlink socket that does
/// not open) throws.
public struct ExporterProber: Sendable {
    /// Redirects are followed only to hosts it allows.
    public var allow: AllowList

    public init(allow: AllowList) {
        self.allow = allow
    }

    public func probe(_ request: ExporterRouter.ProbeRequest) throws -> ProbeMeasurement {
        let start = MonotonicInstant.now()
        let deadline = start + max(.milliseconds(1), request.timeout)
        var measurement: ProbeMeasurement
        switch request.module.prober {
        case .icmp: measurement = ProbeMeasurement(detail: .icmp(.init()))
        case .tcp: measurement = ProbeMeasurement(detail: .tcp(.init()))
        case .http:
            var http = ProbeMeasurement.HTTP()
            // skip_resolve_phase_with_proxy: the proxy resolves the target's name (resolvedHost).
            http.resolvedTarget = !request.module.http.skipResolvePhaseWithProxy || request.module.http.proxy == nil
            measurement = ProbeMeasurement(detail: .http(http))
        case .dns: measurement = ProbeMeasurement(detail: .dns(.init()))
        case .grpc: measurement = ProbeMeasurement(detail: .grpc(.init()))
        case .route: measurement = ProbeMeasurement(detail: .route(nil))
        case .trace: measurement = ProbeMeasurement(detail: .trace(.init()))
        }
        let resolveStart = MonotonicInstant.now()
        let address = try resolve(Self.resolvedHost(of: request), module: request.module, deadline: deadline)
        measurement.lookup = MonotonicInstant.now() - resolveStart
        if address == nil { measurement.failure = .nameNotResolved }
        if let address {
            measurement.address = address
            switch request.module.prober {
            case .icmp: try icmp(address, settings: request.module.icmp, deadline: deadline, into: &measurement)
            case .tcp:
                try tcp(address, target: request.target, settings: request.module.tcp, deadline: deadline, into: &measurement)
            case .http: try http(address, target: request.target, module: request.module, deadline: deadline, into: &measurement)
            case .route: try route(address, into: &measurement)
            case .trace: try trace(address, settings: request.module.trace, deadline: deadline, into: &measurement)
            case .dns: try dns(address, request: request, deadline: deadline, into: &measurement)
            case .grpc: try grpc(address, target: request.target, settings: request.module.grpc, deadline: deadline, into: &measurement)
            }
        }
        measurement.duration = MonotonicInstant.now() - start
        return measurement
    }

    /// blackbox_exporter's chooseProtocol (`prober/utils.go`): the preferred family's first
    /// address; with the fallback, else the other family's; without it, only the preferred.
    func resolve(_ host: String, module: ExporterModule, deadline: MonotonicInstant) throws -> IPAddress? {
        let preferred: AddressFamily = module.preferredIPProtocol == .ip4 ? .ipv4 : .ipv6
        let candidates: [IPAddress]
        if let literal = try? IPAddress.parse(host) {
            candidates = [try literal.resolvingZone()]
        } else {
            switch try SystemHostResolver().addresses(
                of: host, family: module.ipProtocolFallback ? nil : preferred, timeout: deadline.remaining(from: .now()))
            {
            case .resolved(let addresses): candidates = addresses
            case .notResolved: return nil
            case .failed(let error): throw error
            }
        }
        return Self.choose(from: candidates, preferred: preferred, fallback: module.ipProtocolFallback)
    }

    static func choose(from candidates: [IPAddress], preferred: AddressFamily, fallback: Bool) -> IPAddress? {
        if let match = candidates.first(where: { $0.family == preferred }) { return match }
        return fallback ? candidates.first : nil
    }

    private func icmp(
        _ address: IPAddress, settings: ICMPProberSettings, deadline: MonotonicInstant, into measurement: inout ProbeMeasurement
    ) throws {
        guard case .icmp(var icmp) = measurement.detail else { return }
        let setupStart = MonotonicInstant.now()
        guard let socket = try openSocket(for: address, settings: settings) else { return measurement.fail(.sourceAddressUnavailable) }
        icmp.setupSeconds = (MonotonicInstant.now() - setupStart).secondsValue
        // One echo request, as blackbox_exporter sends (`prober/icmp.go`), answered or not by the deadline.
        let payloadSize = settings.payloadSize == 0 ? Self.blackboxPayload.count : settings.payloadSize
        let outcome = try ICMPEchoProbe(echoes: 1, payloadSize: payloadSize).run(
            to: address, through: socket, deadline: deadline)
        measurement.routeRefusal = outcome.refusal.flatMap { UnreachableReason(routeRefusal: $0) }
        if let reply = outcome.reply {
            icmp.rttSeconds = reply.roundTrip.secondsValue
            icmp.replyHopLimit = reply.ttl
            measurement.success = true
        } else {
            let tooBig = outcome.refusal == .messageTooLong
            measurement.failure = measurement.routeRefusal.map(ProbeFailureReason.route) ?? (tooBig ? .packetTooBig : .timedOut)
        }
        measurement.detail = .icmp(icmp)
    }

    /// blackbox_exporter's echo data when no payload_size is set (`prober/icmp.go`).
    static let blackboxPayload = Array("Prometheus Blackbox Exporter".utf8)

    /// The socket as the module shapes it: its TTL, DF for IPv4, its source address. A source
    /// address the socket cannot be bound to fails the probe (blackbox_exporter's listen
    /// fails), nil here; not having ICMP permission is thrown.
    private func openSocket(for address: IPAddress, settings: ICMPProberSettings) throws -> ICMPSocket? {
        let source = settings.address.source
        var options = ICMPSocketOptions(sourceAddress: source, ttl: settings.ttl == 0 ? nil : settings.ttl)
        if settings.dontFragment, address.family == .ipv4 { options.pathMTUDiscovery = .do }
        if let source, source.family != address.family { return nil }
        do {
            return try ICMPSocket(family: address.family, options: options)
        } catch let error as SystemCallError where error.call == "bind" {
            return nil
        }
    }

    private func route(_ address: IPAddress, into measurement: inout ProbeMeasurement) throws {
        // ModemManager's and NetworkManager's word asked afresh per probe (the facts'
        // connection is no thread's to share).
        let path = try PathEvaluator.live().evaluate(address)
        measurement.detail = .route(path)
        measurement.success = path.isReachable
        measurement.failure = path.reason.map(ProbeFailureReason.route)
    }
}

/// The icmp prober's own.
extension ProbeFailureReason {
    /// The kernel refused to send the echo request (EMSGSIZE): larger than the path's MTU
    /// with dont_fragment set.
    public static let packetTooBig = Self(rawValue: "packet_too_big")
}

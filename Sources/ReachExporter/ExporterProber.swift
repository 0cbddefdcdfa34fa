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
        var measurement = Self.unmeasured(request.module)
        let host = Self.resolvedHost(of: request)
        if request.module.preferredIPProtocol == .both {
            let addresses = try resolveEveryFamily(host, deadline: deadline)
            measurement.lookup = MonotonicInstant.now() - start
            measurement = try probeEveryFamily(addresses, request, deadline: deadline, from: measurement)
        } else {
            let address = try resolve(host, module: request.module, deadline: deadline)
            measurement.lookup = MonotonicInstant.now() - start
            if let address {
                measurement.address = address
                try run(address, request, deadline: deadline, into: &measurement)
            } else {
                measurement.failure = .nameNotResolved
            }
        }
        measurement.duration = MonotonicInstant.now() - start
        return measurement
    }

    /// A measurement of the module's prober before anything is measured.
    static func unmeasured(_ module: ExporterModule) -> ProbeMeasurement {
        switch module.prober {
        case .icmp: return ProbeMeasurement(detail: .icmp(.init()))
        case .tcp: return ProbeMeasurement(detail: .tcp(.init()))
        case .http:
            var http = ProbeMeasurement.HTTP()
            // skip_resolve_phase_with_proxy: the proxy resolves the target's name (resolvedHost).
            http.resolvedTarget = !module.http.skipResolvePhaseWithProxy || module.http.proxy == nil
            return ProbeMeasurement(detail: .http(http))
        case .dns: return ProbeMeasurement(detail: .dns(.init()))
        case .grpc: return ProbeMeasurement(detail: .grpc(.init()))
        case .route: return ProbeMeasurement(detail: .route(nil))
        case .trace: return ProbeMeasurement(detail: .trace(.init()))
        }
    }

    /// The module's prober to `address`, resolved.
    func run(
        _ address: IPAddress, _ request: ExporterRouter.ProbeRequest, deadline: MonotonicInstant, into measurement: inout ProbeMeasurement
    ) throws {
        let module = request.module
        switch module.prober {
        case .icmp: try icmp(address, settings: module.icmp, deadline: deadline, into: &measurement)
        case .tcp: try tcp(address, target: request.target, settings: module.tcp, deadline: deadline, into: &measurement)
        case .http: try http(address, target: request.target, module: module, deadline: deadline, into: &measurement)
        case .route: try route(address, into: &measurement)
        case .trace: try trace(address, settings: module.trace, deadline: deadline, into: &measurement)
        case .dns: try dns(address, request: request, deadline: deadline, into: &measurement)
        case .grpc: try grpc(address, target: request.target, settings: module.grpc, deadline: deadline, into: &measurement)
        }
    }

    /// blackbox_exporter's chooseProtocol (`prober/utils.go`): the preferred family's first
    /// address; with the fallback, else the other family's; without it, only the preferred.
    func resolve(_ host: String, module: ExporterModule, deadline: MonotonicInstant) throws -> IPAddress? {
        let preferred: AddressFamily = module.preferredIPProtocol == .ip4 ? .ipv4 : .ipv6
        let family = module.ipProtocolFallback ? nil : preferred
        guard let candidates = try addresses(of: host, family: family, deadline: deadline) else { return nil }
        return Self.choose(from: candidates, preferred: preferred, fallback: module.ipProtocolFallback)
    }

    /// The addresses of `host` in `family` (nil: any), a literal as it is; nil when the name
    /// has none.
    func addresses(of host: String, family: AddressFamily?, deadline: MonotonicInstant) throws -> [IPAddress]? {
        if let literal = try? IPAddress.parse(host) { return [try literal.resolvingZone()] }
        switch try SystemHostResolver().addresses(of: host, family: family, timeout: deadline.remaining(from: .now())) {
        case .resolved(let addresses): return addresses
        case .notResolved: return nil
        case .failed(let error): throw error
        }
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
        let socket: ICMPSocket
        switch try openSocket(for: address, settings: settings) {
        case .success(let opened): socket = opened
        case .failure(let refusal): return measurement.fail(.source(refusal))
        }
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

    /// The socket as the module shapes it: its TTL, DF for IPv4, its link and source address.
    /// A link or source address the socket cannot be bound to fails the probe
    /// (blackbox_exporter's listen fails); not having ICMP permission is thrown.
    private func openSocket(for address: IPAddress, settings: ICMPProberSettings) throws -> Result<ICMPSocket, SocketBinding.Refusal> {
        let source = settings.address.binding
        var options = ICMPSocketOptions(
            interface: source.interface, sourceAddress: source.address, ttl: settings.ttl == 0 ? nil : settings.ttl)
        if settings.dontFragment, address.family == .ipv4 { options.pathMTUDiscovery = .do }
        if let local = source.address, local.family != address.family { return .failure(.address(.invalidArgument)) }
        do {
            return .success(try ICMPSocket(family: address.family, options: options))
        } catch let error as SystemCallError where error.call == "bind" {
            return .failure(.address(error.errno))
        } catch let error as SystemCallError where error.call == ICMPSocketOptions.bindToDeviceCall {
            return .failure(.interface(error.errno))
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

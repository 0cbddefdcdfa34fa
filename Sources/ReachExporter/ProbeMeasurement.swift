import ReachCore
import ReachExporterProbes
import ReachSystem

/// What one probe measured, as values; `samples` turns it into blackbox_exporter's metrics
/// (names, help texts and types of `prober/handler.go`, `utils.go`, `icmp.go`, `tcp.go`,
/// `http.go` in blackbox_exporter 0.23) or reach's own for the route module.
public struct ProbeMeasurement: Sendable, Equatable {
    public var success = false
    /// probe_duration_seconds: the whole probe's time.
    public var duration = TimeSpan.zero
    /// probe_dns_lookup_time_seconds: the resolution's time, also when it failed.
    public var lookup = TimeSpan.zero
    /// The address probed, once resolved (probe_ip_protocol, probe_ip_addr_hash).
    public var address: IPAddress?
    /// The route type behind the kernel's refusal of the echo request's sendto or the
    /// connect, before any packet left; nil when nothing was refused so.
    public var routeRefusal: UnreachableReason?
    /// Why the probe failed; nil while it has not (reach_probe_failure_info).
    public var failure: ProbeFailureReason?
    /// `preferred_ip_protocol: both`: how each family's probe ended, in the order probed
    /// (reach_probe_ip_protocol_success); empty for a probe of one family.
    public var families: [FamilyOutcome] = []
    public var detail: Detail

    public enum Detail: Sendable, Equatable {
        case icmp(ICMP)
        case tcp(TCP)
        case http(HTTP)
        case grpc(GRPC)
        case route(PathReport?)
        case dns(DNS)
        case trace(Trace)
    }

    public struct ICMP: Sendable, Equatable {
        public var setupSeconds = 0.0
        public var rttSeconds = 0.0
        /// The reply's TTL or hop limit, when the socket reported it.
        public var replyHopLimit: Int?
        public init() {}
    }

    public struct HTTP: Sendable, Equatable {
        /// probe_http_duration_seconds' connect, processing and transfer phases.
        public var phases = HTTPProbe.Phases()
        /// 0 when no response came (as blackbox_exporter leaves it).
        public var statusCode = 0
        /// Content-Length, -1 when the response has none (Go's http.Response.ContentLength).
        public var contentLength = 0
        public var bodyLength = 0
        /// 1.0 or 1.1 from the status line; 0 without a response.
        public var version = 0.0
        /// Redirect answers seen, followed or not (blackbox_exporter counts the one it declines).
        public var redirects = 0
        /// What TLS showed of the server that gave the final response; nil over plain HTTP.
        public var tls: TLSStream.Peer?
        /// Why the TLS handshake failed, when it did.
        public var tlsFailure: TLSStream.Failure?
        /// A header or body pattern failed the probe.
        public var failedDueToRegex = false
        /// The final response's Last-Modified in seconds since the epoch, when it has one that
        /// Go's http.ParseTime reads.
        public var lastModified: Int64?
        /// False with skip_resolve_phase_with_proxy: the proxy resolved the target's name,
        /// and blackbox_exporter, which then skips chooseProtocol, has no resolve phase,
        /// probe_ip_protocol, probe_ip_addr_hash or probe_dns_lookup_time_seconds.
        public var resolvedTarget = true
        public init() {}
    }

    public init(detail: Detail) {
        self.detail = detail
    }

    /// Ends the probe as failed, for `reason`.
    mutating func fail(_ reason: ProbeFailureReason) {
        success = false
        failure = reason
    }

    /// blackbox_exporter's probe_ip_addr_hash: FNV-1a (32 bits) of the address's bytes.
    public static func addressHash(_ address: IPAddress) -> Double {
        var hash: UInt32 = 2_166_136_261
        for byte in address.bytes {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Double(hash)
    }

    public var samples: [MetricSample] {
        var samples: [MetricSample]
        switch detail {
        case .icmp(let icmp): samples = icmpSamples(icmp)
        case .tcp(let tcp): samples = tcpSamples(tcp)
        case .grpc(let grpc): samples = grpcSamples(grpc)
        case .http(let http): samples = httpSamples(http)
        case .route(let path): samples = routeSamples(path)
        case .dns(let dns): samples = dnsSamples(dns)
        case .trace(let trace): samples = traceSamples(trace)
        }
        if let routeRefusal {
            samples.append(MetricSample(
                "reach_probe_route_refused", help: "1: the kernel refused the destination by its route (the reason) before any packet left",
                labels: [.init("reason", routeRefusal.rawValue)], value: 1))
        }
        if !success, let failure {
            samples.append(MetricSample(
                "reach_probe_failure_info", help: "Why the probe failed, from reach-exporter(1)'s list of failure reasons",
                labels: [.init("reason", failure.rawValue)], value: 1))
        }
        for family in families {
            samples.append(MetricSample(
                "reach_probe_ip_protocol_success", help: "With preferred_ip_protocol both: whether the probe over this family succeeded",
                labels: [.init("ip_protocol", family.ipProtocol.rawValue)], value: family.success ? 1 : 0))
        }
        samples.append(MetricSample("probe_success", help: "Displays whether or not the probe was a success", value: success ? 1 : 0))
        samples.append(MetricSample(
            "probe_duration_seconds", help: "Returns how long the probe took to complete in seconds", value: duration.secondsValue))
        return samples
    }

    /// blackbox_exporter's ICMP prober (`prober/icmp.go`): its phases, then the address, then
    /// the reply's hop limit when one came.
    private func icmpSamples(_ icmp: ICMP) -> [MetricSample] {
        var samples: [MetricSample] = []
        for (phase, seconds) in [("resolve", lookup.secondsValue), ("setup", icmp.setupSeconds), ("rtt", icmp.rttSeconds)] {
            samples.append(MetricSample(
                "probe_icmp_duration_seconds", help: "Duration of icmp request by phase", labels: [.init("phase", phase)],
                value: seconds))
        }
        samples += addressSamples
        if let hopLimit = icmp.replyHopLimit {
            samples.append(MetricSample(
                "probe_icmp_reply_hop_limit", help: "Replied packet hop limit (TTL for ipv4)", value: Double(hopLimit)))
        }
        return samples
    }

    /// blackbox_exporter's HTTP prober (`prober/http.go`): its phases, the response's
    /// figures, then the address (none of the resolution when the proxy resolved).
    private func httpSamples(_ http: HTTP) -> [MetricSample] {
        let phases = (http.resolvedTarget ? [("resolve", lookup.secondsValue)] : []) + [
            ("connect", http.phases.connect.secondsValue), ("tls", http.phases.tls.secondsValue),
            ("processing", http.phases.processing.secondsValue), ("transfer", http.phases.transfer.secondsValue),
        ]
        var samples = phases.map { phase, seconds in
            MetricSample(
                "probe_http_duration_seconds", help: "Duration of http request by phase, summed over all redirects",
                labels: [.init("phase", phase)], value: seconds)
        }
        samples += [
            MetricSample("probe_http_content_length", help: "Length of http content response", value: Double(http.contentLength)),
            MetricSample(
                "probe_http_uncompressed_body_length", help: "Length of uncompressed response body", value: Double(http.bodyLength)),
            MetricSample("probe_http_redirects", help: "The number of redirects", value: Double(http.redirects)),
            MetricSample("probe_http_ssl", help: "Indicates if SSL was used for the final redirect", value: http.tls == nil ? 0 : 1),
            MetricSample("probe_http_status_code", help: "Response HTTP status code", value: Double(http.statusCode)),
            MetricSample("probe_http_version", help: "Returns the version of HTTP of the probe response", value: http.version),
            MetricSample("probe_failed_due_to_regex", help: Self.regexSample.help, value: http.failedDueToRegex ? 1 : 0),
        ]
        if let lastModified = http.lastModified {
            samples.append(MetricSample(
                "probe_http_last_modified_timestamp_seconds", help: "Returns the Last-Modified HTTP response header in unixtime",
                value: Double(lastModified)))
        }
        return samples + (http.tls.map(Self.tlsSamples) ?? []) + (http.resolvedTarget ? addressSamples : [])
    }

    /// reach's own `route` module: the address, then what the kernel's route says.
    private func routeSamples(_ path: PathReport?) -> [MetricSample] {
        let family = path.map { $0.family == .ipv4 ? "ipv4" : "ipv6" } ?? ""
        let reason = path?.reason?.rawValue ?? (path == nil ? UnreachableReason.nameNotResolved.rawValue : "")
        return addressSamples + [
            MetricSample(
                "reach_route_reachable", help: "Whether the kernel has a usable route to the target (1) or not (0); no packet sent",
                value: path?.isReachable == true ? 1 : 0),
            MetricSample(
                "reach_route_info",
                help: "The kernel's path to the target: unreachable reason, outgoing link, its kind, gateway, family, cellular generation",
                labels: [
                    .init("reason", reason), .init("link", path?.link?.name ?? ""), .init("kind", path?.link?.kind.rawValue ?? ""),
                    .init("gateway", path?.gateway?.description ?? ""), .init("family", family),
                    // For a cellular link, ModemManager's generation as reach names it ("4g"); else empty.
                    .init("generation", path?.link?.cellular?.generation?.name ?? ""),
                ],
                value: 1),
        ]
    }

    /// probe_failed_due_to_regex, 0: a prober whose patterns did not fail it.
    private static let regexSample = MetricSample("probe_failed_due_to_regex", help: "Indicates if probe failed due to regex", value: 0)

    /// blackbox_exporter's chooseProtocol registers these three for every prober that resolves.
    var addressSamples: [MetricSample] {
        [
            MetricSample("probe_ip_protocol", help: "Specifies whether probe ip protocol is IP4 or IP6",
                         value: address.map { $0.family == .ipv4 ? 4 : 6 } ?? 0),
            MetricSample(
                "probe_dns_lookup_time_seconds", help: "Returns the time taken for probe dns lookup in seconds",
                value: lookup.secondsValue),
            MetricSample("probe_ip_addr_hash", help: "Specifies the hash of IP address. It's useful to detect if the IP address changes.",
                         value: address.map(Self.addressHash) ?? 0),
        ]
    }
}

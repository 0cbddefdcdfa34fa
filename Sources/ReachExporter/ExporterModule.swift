import ReachSystem

/// A module of blackbox_exporter's `blackbox.yml` (`config/config.go` Module): a prober, a
/// timeout, and each prober's settings with blackbox_exporter's defaults (each in its own
/// prober's folder under Probers/). A module names one prober; the other probers' settings are read and
/// checked, then unused, as blackbox_exporter does.
public struct ExporterModule: Hashable, Sendable {
    public enum Prober: String, Hashable, Sendable, CaseIterable {
        case icmp
        case tcp
        case http
        case dns
        case grpc
        /// reach's own: the kernel's verdict on the route, no packet sent.
        case route
        /// reach's own: the hops to the target, `reach trace`'s engine for one pass.
        case trace
    }

    public enum IPProtocol: String, Hashable, Sendable {
        case ip4
        case ip6
        /// reach's own: every family the name resolves to, probed at once.
        case both
    }

    /// The probers blackbox_exporter 0.23 has (`prober/prober.go`), whether reach runs them or not yet.
    static let blackboxProbers = ["http", "tcp", "icmp", "dns", "grpc"]

    public var name: String
    public var prober: Prober
    /// nil: the scrape's timeout less half a second (blackbox_exporter's `prober/handler.go`
    /// getTimeout).
    public var timeout: TimeSpan?
    public var http = HTTPProberSettings()
    public var tcp = TCPProberSettings()
    public var icmp = ICMPProberSettings()
    public var dns = DNSProberSettings()
    /// blackbox_exporter's DefaultModule (`config/config.go`) sets no grpc defaults: without a
    /// grpc mapping its ip_protocol_fallback is false.
    public var grpc = GRPCProberSettings.unset
    public var trace = TraceProberSettings()

    /// The module's own prober's choice: blackbox_exporter's default is ip6 with a fallback
    /// to ip4 (`prober/utils.go` chooseProtocol). A route module has no settings: the defaults.
    public var preferredIPProtocol: IPProtocol { address.preferredIPProtocol }
    public var ipProtocolFallback: Bool { address.ipProtocolFallback }

    var address: AddressSettings {
        switch prober {
        case .http: http.address
        case .tcp: tcp.address
        case .icmp, .route: icmp.address
        case .dns: dns.address
        case .grpc: grpc.address
        case .trace: trace.address
        }
    }

    /// Empty: any 2xx (`prober/http.go`).
    public var validStatusCodes: [Int] { http.validStatusCodes }
    /// blackbox_exporter's `follow_redirects` (common's HTTPClientConfig), true by default.
    public var followRedirects: Bool { http.client.followRedirects }

    public init(name: String, prober: Prober, timeout: TimeSpan? = nil) {
        self.name = name
        self.prober = prober
        self.timeout = timeout
    }

    /// The modules there are without `--config`: blackbox_exporter's example names, with its defaults.
    public static let defaults: [ExporterModule] = [
        ExporterModule(name: "icmp", prober: .icmp),
        ExporterModule(name: "tcp_connect", prober: .tcp),
        ExporterModule(name: "http_2xx", prober: .http),
        ExporterModule(name: "route", prober: .route),
    ]

    public func accepts(statusCode: Int) -> Bool {
        validStatusCodes.isEmpty ? (200...299).contains(statusCode) : validStatusCodes.contains(statusCode)
    }
}

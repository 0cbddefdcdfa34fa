import ReachSystem

/// A module of blackbox_exporter's `blackbox.yml` (`config/config.go`), the subset reach
/// runs: a prober, a timeout, the IP protocol choice, for HTTP the valid status codes, and
/// the tcp, icmp and grpc probers' own settings.
public struct ExporterModule: Hashable, Sendable {
    public enum Prober: String, Hashable, Sendable, CaseIterable {
        case icmp
        case tcp
        case http
        case dns
        case grpc
        /// reach's own: the kernel's verdict on the route, no packet sent.
        case route
    }

    public enum IPProtocol: String, Hashable, Sendable {
        case ip4
        case ip6
    }

    public var name: String
    public var prober: Prober
    /// nil: the scrape's timeout less half a second (blackbox_exporter's `prober/handler.go`
    /// getTimeout).
    public var timeout: TimeSpan?
    /// blackbox_exporter's default is ip6 with a fallback to ip4 (`prober/utils.go` chooseProtocol).
    public var preferredIPProtocol: IPProtocol = .ip6
    public var ipProtocolFallback = true
    /// Empty: any 2xx (`prober/http.go`).
    public var validStatusCodes: [Int] = []
    /// blackbox_exporter's `follow_redirects` (common's HTTPClientConfig), true by default.
    public var followRedirects = true
    /// The dns prober's settings (`DNSProberSettings.parse`).
    public var dns = DNSProberSettings()
    public var tcp = TCPProberSettings()
    public var icmp = ICMPProberSettings()
    public var grpc = GRPCProberSettings()

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

    /// Prometheus's duration form, the part modules use: a number and ms, s, m or h.
    static func seconds(_ text: String) -> Double? {
        for (suffix, scale) in [("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)] where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(number) else {
                return nil
            }
            return value * scale
        }
        return nil
    }

    /// `seconds` as a span, a day at most (`TimeSpan.maximum`): "1e300" is long, not a trap.
    static func span(seconds: Double) -> TimeSpan {
        guard seconds < TimeSpan.maximum.secondsValue else { return .maximum }
        return TimeSpan(nanoseconds: Int64((seconds * 1e9).rounded()))
    }

    public func accepts(statusCode: Int) -> Bool {
        validStatusCodes.isEmpty ? (200...299).contains(statusCode) : validStatusCodes.contains(statusCode)
    }
}

import ReachCore

/// Why a probe failed, from a closed list (man/reach-exporter.1, FAILURE REASONS), as the
/// `reason` label of reach's `reach_probe_failure_info` series. blackbox_exporter says only
/// `probe_success 0` and leaves the why to its debug log; a dashboard or an alert can group
/// on this label instead.
///
/// A struct of snake_case names rather than an enum, so that each prober declares the
/// reasons that are its own beside its code, in an extension; the man page lists them all.
public struct ProbeFailureReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}

/// The reasons every prober shares: the name, the route, the connection.
extension ProbeFailureReason {
    /// The target's name has no address in the module's families, or the resolver did not
    /// answer in time.
    public static let nameNotResolved = Self(rawValue: UnreachableReason.nameNotResolved.rawValue)
    /// The peer answered the connection with a reset (ECONNREFUSED).
    public static let connectionRefused = Self(rawValue: "connection_refused")
    /// The network answered with an ICMP destination-unreachable error (EHOSTUNREACH or
    /// ENETUNREACH after the packet left).
    public static let hostUnreachable = Self(rawValue: "host_unreachable")
    /// Nothing, or not enough, came back before the probe's deadline.
    public static let timedOut = Self(rawValue: "timed_out")
    /// The peer closed or reset the connection before its answer was whole.
    public static let connectionClosed = Self(rawValue: "connection_closed")

    /// The kernel's verdict on the route, before any packet left: `no_route`,
    /// `unreachable_route`, `blackhole_route`, `prohibited_route`, `link_down`... as
    /// reach(1) names it.
    public static func route(_ verdict: UnreachableReason) -> Self {
        Self(rawValue: verdict.rawValue)
    }

    /// A TCP connect that did not open, by what answered it.
    static func connect(_ failure: TCPProbe.Failure) -> Self {
        switch failure.kind {
        case .refused: return .connectionRefused
        case .unreachable: return .hostUnreachable
        case .timedOut: return .timedOut
        case .routeRefused: return failure.routeRefusal.map(route) ?? .hostUnreachable
        }
    }
}

/// The http prober's own.
extension ProbeFailureReason {
    /// Bytes came that are not an HTTP response.
    public static let malformedResponse = Self(rawValue: "malformed_response")
    /// A whole response whose status code the module does not accept.
    public static let statusCode = Self(rawValue: "status_code")
    /// A redirect the probe may not follow: to a host outside --allow, to another scheme,
    /// or to a Location that is not a URL; or any redirect with follow_redirects false.
    public static let redirectNotFollowed = Self(rawValue: "redirect_not_followed")
    /// More than 10 redirects, where Go's client stops.
    public static let tooManyRedirects = Self(rawValue: "too_many_redirects")
}

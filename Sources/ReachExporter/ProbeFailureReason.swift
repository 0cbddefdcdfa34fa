import ReachCore
import ReachSystem

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
    /// source_ip_address is not one of this host's addresses, or not of the target's family.
    public static let sourceAddressUnavailable = Self(rawValue: "source_address_unavailable")
    /// source_interface names no link this host has (SO_BINDTODEVICE's ENODEV), now.
    public static let sourceInterfaceUnavailable = Self(rawValue: "source_interface_unavailable")

    /// The local end the kernel refused: the source address, or the link.
    static func source(_ refusal: SocketBinding.Refusal) -> Self {
        switch refusal {
        case .address: return .sourceAddressUnavailable
        case .interface: return .sourceInterfaceUnavailable
        }
    }

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
        case .sourceRefused: return .sourceAddressUnavailable
        case .interfaceRefused: return .sourceInterfaceUnavailable
        }
    }
}

/// The http prober's own.
extension ProbeFailureReason {
    /// Bytes came that are not an HTTP response.
    public static let malformedResponse = Self(rawValue: "malformed_response")
    /// A whole response whose status code the module does not accept.
    public static let statusCode = Self(rawValue: "status_code")
    /// A redirect the probe may not follow: to a host outside --allow, to a scheme
    /// other than http and https; or any redirect with follow_redirects false.
    public static let redirectNotFollowed = Self(rawValue: "redirect_not_followed")
    /// More than 10 redirects, where Go's client stops.
    public static let tooManyRedirects = Self(rawValue: "too_many_redirects")
    /// fail_if_header_matches or fail_if_header_not_matches.
    public static let headerRegex = Self(rawValue: "header_regex")
    /// fail_if_body_matches_regexp or fail_if_body_not_matches_regexp.
    public static let bodyRegex = Self(rawValue: "body_regex")
    /// The body does not decode by the module's compression (not that coding, or cut short).
    public static let bodyDecoding = Self(rawValue: "body_decoding")
    /// proxy_url's proxy did not open the way: CONNECT not answered 2xx, TLS with an https://
    /// proxy failed, or a SOCKS5 proxy refused the credentials or the connection.
    public static let proxyRefused = Self(rawValue: "proxy_refused")
    /// oauth2's token_url gave no access token (not reached, not 2xx, or none in its answer).
    public static let oauth2Token = Self(rawValue: "oauth2_token")
    /// A body longer than body_size_limit.
    public static let bodyTooLarge = Self(rawValue: "body_too_large")
    /// An HTTP version that valid_http_versions does not list.
    public static let httpVersion = Self(rawValue: "http_version")
    /// fail_if_ssl: the final response came over TLS.
    public static let ssl = Self(rawValue: "ssl")
    /// fail_if_not_ssl: the final response came in the clear.
    public static let notSSL = Self(rawValue: "not_ssl")
}

import ReachCore
import ReachSystem

/// Runs one `/probe` on the calling thread, to its verdict within the request's timeout,
/// over ReachCore's and ReachSystem's engines: the resolver, the ICMP engine and socket
/// (datagram first, raw only with CAP_NET_RAW permitted, raised around socket()), TCP
/// connections, the HTTP response parser, and the route evaluator. A probe that cannot run
/// at all (no ICMP permission, a netlink socket that does not open) throws.
public struct ExporterProber: Sendable {
    /// Redirects are followed only to hosts it allows.
    public var allow: AllowList

    public init(allow: AllowList) {
        self.allow = allow
    }

    public func probe(_ request: ExporterRouter.ProbeRequest) throws -> ProbeMeasurement {
        let start = SystemClock.monotonicNanoseconds()
        let deadline = SystemClock.monotonicMilliseconds() + max(1, Int64(request.timeoutSeconds * 1000))
        var measurement: ProbeMeasurement
        switch request.module.prober {
        case .icmp: measurement = ProbeMeasurement(detail: .icmp(.init()))
        case .tcp: measurement = ProbeMeasurement(detail: .tcp)
        case .http: measurement = ProbeMeasurement(detail: .http(.init()))
        case .route: measurement = ProbeMeasurement(detail: .route(nil))
        }
        let resolveStart = SystemClock.monotonicNanoseconds()
        let address = try resolve(request.target.host, module: request.module, deadline: deadline)
        measurement.lookupSeconds = seconds(since: resolveStart)
        if let address {
            measurement.address = address
            switch request.module.prober {
            case .icmp: try icmp(address, deadline: deadline, into: &measurement)
            case .tcp: try tcp(address, port: request.target.port ?? 0, deadline: deadline, into: &measurement)
            case .http: try http(address, target: request.target, module: request.module, deadline: deadline, into: &measurement)
            case .route: try route(address, into: &measurement)
            }
        }
        measurement.durationSeconds = seconds(since: start)
        return measurement
    }

    private func seconds(since start: Int64) -> Double {
        Double(SystemClock.monotonicNanoseconds() - start) / 1e9
    }

    /// blackbox_exporter's chooseProtocol (`prober/utils.go`): the preferred family's first
    /// address; with the fallback, else the other family's; without it, only the preferred.
    func resolve(_ host: String, module: ExporterModule, deadline: Int64) throws -> IPAddress? {
        let preferred: AddressFamily = module.preferredIPProtocol == .ip4 ? .ipv4 : .ipv6
        let candidates: [IPAddress]
        if let literal = try? IPAddress.parse(host) {
            candidates = [try literal.resolvingZone()]
        } else {
            let remaining = SystemClock.millisecondsRemaining(until: deadline)
            switch try SystemHostResolver().addresses(
                of: host, family: module.ipProtocolFallback ? nil : preferred, timeoutMilliseconds: remaining)
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

    private func icmp(_ address: IPAddress, deadline: Int64, into measurement: inout ProbeMeasurement) throws {
        guard case .icmp(var icmp) = measurement.detail else { return }
        let setupStart = SystemClock.monotonicNanoseconds()
        let socket = try ICMPSocket(family: address.family)
        icmp.setupSeconds = seconds(since: setupStart)
        // One echo request, as blackbox_exporter sends (`prober/icmp.go`), answered or not by the deadline.
        let outcome = try ICMPEchoProbe(echoes: 1).run(
            to: address, through: socket, deadline: MonotonicInstant(nanoseconds: deadline * 1_000_000))
        measurement.routeRefusal = outcome.refusal.flatMap { UnreachableReason(routeRefusal: $0) }
        if let reply = outcome.reply {
            icmp.rttSeconds = reply.roundTrip.secondsValue
            icmp.replyHopLimit = reply.ttl
            measurement.success = true
        }
        measurement.detail = .icmp(icmp)
    }

    private func tcp(_ address: IPAddress, port: UInt16, deadline: Int64, into measurement: inout ProbeMeasurement) throws {
        switch try TCPConnection.connect(to: address, port: port, deadline: deadline) {
        case .connected: measurement.success = true
        case .routeRefused(let errno): measurement.routeRefusal = UnreachableReason(routeRefusal: errno)
        case .refused, .unreachable, .timedOut: break
        }
    }

    /// blackbox_exporter's http prober (`prober/http.go`): a GET, following up to 10
    /// redirects when the module does (Go's client asks CheckRedirect before each, and the
    /// prober counts them then), the phases summed over every request. A redirect that
    /// cannot be followed (to https, or to a host outside --allow) ends the probe with the
    /// redirect as the answer and no success.
    private func http(
        _ address: IPAddress, target: ProbeTarget, module: ExporterModule, deadline: Int64, into measurement: inout ProbeMeasurement
    ) throws {
        guard case .http(var http) = measurement.detail else { return }
        defer { measurement.detail = .http(http) }
        var address = address
        var target = target
        while true {
            guard let (response, version) = try exchange(
                address, target: target, deadline: deadline, timing: &http, refusal: &measurement.routeRefusal)
            else { return }
            http.statusCode = response.statusCode
            http.contentLength = response.header("Content-Length").flatMap { Int($0.filter { $0 != " " && $0 != "\t" }) } ?? -1
            http.bodyLength = response.body.count
            http.version = version
            measurement.success = module.accepts(statusCode: response.statusCode)
            guard [301, 302, 303, 307, 308].contains(response.statusCode), let location = response.header("Location") else { return }
            http.redirects += 1
            guard module.followRedirects, http.redirects <= 10 else { return }
            measurement.success = false
            guard let next = Self.redirectTarget(location, from: target), allow.refusal(of: next.host) == nil else { return }
            let resolveStart = SystemClock.monotonicNanoseconds()
            let resolved = try resolve(next.host, module: module, deadline: deadline)
            measurement.lookupSeconds += seconds(since: resolveStart)
            guard let resolved else { return }
            (address, target) = (resolved, next)
        }
    }

    /// One request on a connection of its own; nil when no whole response came. `refusal`:
    /// the route type when the kernel refused the connect.
    private func exchange(
        _ address: IPAddress, target: ProbeTarget, deadline: Int64, timing http: inout ProbeMeasurement.HTTP,
        refusal: inout UnreachableReason?
    ) throws -> (HTTPResponse, version: Double)? {
        let port = target.port ?? 80
        let connectStart = SystemClock.monotonicNanoseconds()
        let outcome = try TCPConnection.connect(to: address, port: port, deadline: deadline)
        http.connectSeconds += seconds(since: connectStart)
        if case .routeRefused(let errno) = outcome { refusal = UnreachableReason(routeRefusal: errno) }
        guard case .connected(let connection) = outcome else { return nil }
        let processingStart = SystemClock.monotonicNanoseconds()
        let hostHeader = (target.host.contains(":") ? "[\(target.host)]" : target.host) + (port == 80 ? "" : ":\(port)")
        let request = "GET \(target.path ?? "/") HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: reach-exporter/1\r\n"
            + "Accept: */*\r\nConnection: close\r\n\r\n"
        guard try connection.sendAll(Array(request.utf8), deadline: deadline) else { return nil }
        var received: [UInt8] = []
        var firstByte: Int64?
        while true {
            let outcome = try connection.receive(maximum: 16 * 1024, deadline: deadline)
            if case .data(let bytes) = outcome {
                if firstByte == nil {
                    let now = SystemClock.monotonicNanoseconds()
                    firstByte = now
                    http.processingSeconds += Double(now - processingStart) / 1e9
                }
                received += bytes
            }
            if outcome == .timedOut { return nil }
            let closed = outcome == .closed || outcome == .reset
            switch HTTPResponse.parse(received, connectionClosed: closed) {
            case .incomplete:
                if closed { return nil }
            case .malformed:
                return nil
            case .complete(let response):
                http.transferSeconds += firstByte.map { Double(SystemClock.monotonicNanoseconds() - $0) / 1e9 } ?? 0
                return (response, received.starts(with: Array("HTTP/1.0".utf8)) ? 1.0 : 1.1)
            }
        }
    }

    /// Where a Location header points, from the URL that answered it (RFC 9110, 10.2.2, and
    /// RFC 3986, 5.2): an absolute http URL, a scheme-relative `//host/path`, an absolute path,
    /// or a path relative to the current one. nil for any other scheme (https included).
    static func redirectTarget(_ location: String, from current: ProbeTarget) -> ProbeTarget? {
        var location = Substring(location.filter { $0 != " " && $0 != "\t" })
        if let fragment = location.firstIndex(of: "#") { location = location[..<fragment] }
        if location.hasPrefix("//") { return try? ProbeTarget.parse("http:" + location, for: .http) }
        if let colon = location.firstIndex(of: ":"), location[colon...].hasPrefix("://") {
            return try? ProbeTarget.parse(String(location), for: .http)
        }
        guard !location.isEmpty else { return current }
        var next = current
        if location.hasPrefix("/") {
            next.path = String(location)
        } else {
            let base = current.path ?? "/"
            let directory = base[..<(base.firstIndex(of: "?") ?? base.endIndex)]
            next.path = String(directory[...(directory.lastIndex(of: "/") ?? directory.startIndex)]) + location
        }
        guard next.path?.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) == true else { return nil }
        return next
    }

    private func route(_ address: IPAddress, into measurement: inout ProbeMeasurement) throws {
        let kernel = RouteNetlinkClient(transport: try NetlinkSocket())
        // ModemManager and NetworkManager on the system bus, as `reach addr` asks them: which
        // modem claims the link (cellular, and its generation). Asked afresh per probe (the
        // facts' connection is no thread's to share); a machine without the bus asks nothing.
        let path = try PathEvaluator(kernel: kernel, linkFacts: BusLinkFacts.systemBus()).evaluate(address)
        measurement.detail = .route(path)
        measurement.success = path.isReachable
    }
}

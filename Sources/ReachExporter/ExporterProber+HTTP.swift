import ReachCore
import ReachSystem

extension ExporterProber {
    /// blackbox_exporter's http prober (`prober/http.go`) over ReachCore's `HTTPProbe`: a
    /// GET, following up to 10 redirects when the module does (Go's client asks
    /// CheckRedirect before each, and the prober counts them then), the phases summed over
    /// every request. A redirect that cannot be followed (to https, or to a host outside
    /// --allow) ends the probe with the redirect as the answer and no success.
    func http(
        _ address: IPAddress, target: ProbeTarget, module: ExporterModule, deadline: MonotonicInstant,
        into measurement: inout ProbeMeasurement
    ) throws {
        guard case .http(var http) = measurement.detail else { return }
        defer { measurement.detail = .http(http) }
        let probe = HTTPProbe(userAgent: "reach-exporter/1")
        var address = address
        var target = target
        while true {
            let outcome = try probe.get(
                address, host: target.host, port: target.port ?? 80, path: target.path ?? "/", deadline: deadline, phases: &http.phases)
            let response: HTTPResponse
            switch outcome {
            case .response(let answer, let version):
                response = answer
                http.record(answer, version: version)
            case .notConnected(let why):
                measurement.routeRefusal = why.routeRefusal
                return measurement.fail(.connect(why))
            case .noResponse: return measurement.fail(.connectionClosed)
            case .timedOut: return measurement.fail(.timedOut)
            case .malformed: return measurement.fail(.malformedResponse)
            }
            measurement.success = module.accepts(statusCode: response.statusCode)
            if !measurement.success { measurement.failure = .statusCode }
            guard [301, 302, 303, 307, 308].contains(response.statusCode), let location = response.header("Location") else { return }
            http.redirects += 1
            guard module.followRedirects else { return }
            guard http.redirects <= 10 else { return measurement.fail(.tooManyRedirects) }
            guard let next = Self.redirectTarget(location, from: target), allow.refusal(of: next.host) == nil else {
                return measurement.fail(.redirectNotFollowed)
            }
            let resolveStart = MonotonicInstant.now()
            let resolved = try resolve(next.host, module: module, deadline: deadline)
            measurement.lookup += MonotonicInstant.now() - resolveStart
            guard let resolved else { return measurement.fail(.nameNotResolved) }
            (address, target) = (resolved, next)
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
}

extension ProbeMeasurement.HTTP {
    /// What blackbox_exporter reports of the last response: its status, lengths and version.
    mutating func record(_ response: HTTPResponse, version: Double) {
        statusCode = response.statusCode
        contentLength = response.header("Content-Length").flatMap { Int($0.filter { $0 != " " && $0 != "\t" }) } ?? -1
        bodyLength = response.body.count
        self.version = version
    }
}

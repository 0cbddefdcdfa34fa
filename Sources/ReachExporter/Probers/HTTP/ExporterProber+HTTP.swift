import ReachCore
import ReachExporterProbes
import ReachExporterSystem
import ReachSystem

extension ExporterProber {
    /// blackbox_exporter's http prober (`prober/http.go`): the module's request (method,
    /// headers, credentials, body) over plain HTTP or TLS (`HTTPExchange`), following up to
    /// 10 redirects when the module does (Go's client asks CheckRedirect before each, and
    /// the prober counts them then), the phases summed over every request; then the final
    /// response judged as it judges one: status code, header and body patterns, body size,
    /// HTTP version, TLS or not. A redirect that cannot be followed (to a host outside
    /// --allow) ends the probe with the redirect as the answer and no success.
    func http(
        _ address: IPAddress, target: ProbeTarget, module: ExporterModule, deadline: MonotonicInstant,
        into measurement: inout ProbeMeasurement
    ) throws {
        guard case .http(var http) = measurement.detail else { return }
        defer { measurement.detail = .http(http) }
        var (address, target) = (address, target)
        // With skip_resolve_phase_with_proxy, `address` is the proxy's (`resolvedHost`); else the
        // proxy's name is resolved as the target's is.
        let skipResolve = module.http.proxy != nil && module.http.skipResolvePhaseWithProxy
        let proxyHop = try module.http.proxy.map { url in
            (url: url, address: try skipResolve ? address : resolve(url.host, module: module, deadline: deadline))
        }
        if let proxyHop, proxyHop.address == nil { return measurement.fail(.nameNotResolved) }
        let token = try module.http.client.oauth2.map { try oauth2Token($0, module: module, deadline: deadline) }
        if case .some(nil) = token { return measurement.fail(.oauth2Token) }
        while true {
            let request = try Self.request(for: target, settings: module.http, token: token ?? nil)
            let asked = skipResolve ? target.host : "\(address)"
            let proxy = proxyHop.flatMap { hop in
                hop.address.map { Self.proxy(hop.url, at: $0, to: asked, target, tls: module.http.client.tls) }
            }
            let (outcome, peer) = try HTTPExchange.run(
                request, to: address, port: target.port ?? 80, host: target.host,
                tls: target.secure ? Self.tls(module.http, for: target) : nil, via: proxy, from: module.http.address.binding,
                deadline: deadline, phases: &http.phases)
            http.tls = peer
            guard let response = Self.response(of: outcome, module.http, into: &measurement, &http) else { return }
            measurement.success = module.accepts(statusCode: response.statusCode)
            if !measurement.success { measurement.failure = .statusCode }
            guard [301, 302, 303, 307, 308].contains(response.statusCode), let location = response.header("Location") else {
                if measurement.success, let reason = Self.judge(response, module.http, into: &http) { measurement.fail(reason) }
                return
            }
            http.redirects += 1
            guard module.followRedirects else { return }
            guard http.redirects <= 10 else { return measurement.fail(.tooManyRedirects) }
            guard let next = Self.redirectTarget(location, from: target), allow.refusal(of: next.host) == nil else {
                return measurement.fail(.redirectNotFollowed)
            }
            let resolveStart = MonotonicInstant.now()
            let resolved = skipResolve ? address : try resolve(next.host, module: module, deadline: deadline)
            measurement.lookup += MonotonicInstant.now() - resolveStart
            guard let resolved else { return measurement.fail(.nameNotResolved) }
            (address, target) = (resolved, next)
        }
    }

    /// The response of one exchange, its body decoded, recorded as blackbox_exporter records
    /// it; nil when the probe ended there, failed with why.
    private static func response(
        of outcome: HTTPExchange.Outcome, _ settings: HTTPProberSettings, into measurement: inout ProbeMeasurement,
        _ http: inout ProbeMeasurement.HTTP
    ) -> HTTPResponse? {
        switch outcome {
        case .proxyFailed: measurement.fail(.proxyRefused)
        case .tlsFailed(let why):
            http.tlsFailure = why
            measurement.fail(.tls(why))
        case .http(.notConnected(let why)):
            measurement.routeRefusal = why.routeRefusal
            measurement.fail(.connect(why))
        case .http(.response(let answer, let version)):
            let decoded = decoded(answer, settings)
            http.record(decoded ?? answer, version: version)
            if decoded == nil {
                // blackbox_exporter counts no body it could not read.
                http.bodyLength = 0
                measurement.fail(.bodyDecoding)
            }
            return decoded
        case .http(let other): measurement.fail(failure(other))
        }
        return nil
    }

    /// Why an exchange that gave no response failed.
    static func failure(_ outcome: HTTPProbe.Outcome) -> ProbeFailureReason {
        switch outcome {
        case .timedOut: .timedOut
        case .malformed: .malformedResponse
        default: .connectionClosed
        }
    }

    /// proxy_url's proxy at `address`, asked for `host` (an address, or the target's name
    /// with skip_resolve_phase_with_proxy) at the target's port.
    static func proxy(_ url: ProxyURL, at address: IPAddress, to host: String, _ target: ProbeTarget, tls: TLSSettings)
        -> HTTPExchange.Proxy
    {
        let kind: HTTPExchange.Proxy.Kind
        switch url.scheme {
        case .http: kind = .http
        case .socks5: kind = .socks5
        // Go's transport checks an https proxy with the client's tls_config, against the
        // proxy's own name unless server_name gives one (net/http transport.go, addTLS).
        case .https: kind = .https(tls, name: url.host)
        }
        return HTTPExchange.Proxy(
            kind, address: address, port: url.port, host: host, targetPort: target.port ?? 80, username: url.username,
            password: url.password)
    }

    /// The response with its body decoded by the module's compression (as it came without
    /// one); nil when it does not decode. Only the body's start may have been kept.
    static func decoded(_ response: HTTPResponse, _ settings: HTTPProberSettings) -> HTTPResponse? {
        guard let coding = ContentCoding(rawValue: settings.compression) else { return response }
        let complete = response.body.count < HTTPResponse.bodyLimit
        guard case .success(let body) = coding.decode(response.body, limit: HTTPResponse.bodyLimit, complete: complete) else { return nil }
        var decoded = response
        decoded.body = body
        return decoded
    }

    /// oauth2's token for this probe (RFC 6749, 4.4): the form POSTed to token_url with the
    /// client's credentials as HTTP Basic (RFC 6749, 2.3.1, each part form-escaped, as
    /// golang.org/x/oauth2 sends them), and the access_token of a 2xx answer; nil when none came.
    func oauth2Token(_ settings: HTTPClientSettings.OAuth2, module: ExporterModule, deadline: MonotonicInstant) throws -> String? {
        guard let url = try? ProbeTarget.parse(settings.tokenURL, for: .http),
            let address = try resolve(url.host, module: module, deadline: deadline)
        else { return nil }
        var secret = settings.clientSecret
        let file = settings.clientSecretFile
        if !file.isEmpty, case .success(let bytes) = FileContents.read(file, limit: 64 * 1024) {
            secret = Self.trimmed(bytes)
        }
        let credentials = URLQuery.escaped(settings.clientID) + ":" + URLQuery.escaped(secret)
        var form = HTTPProberSettings()
        form.method = "POST"
        form.body = settings.form
        form.headers = [
            .init(name: "Authorization", value: "Basic " + Base64.encoded(Array(credentials.utf8))),
            .init(name: "Content-Type", value: "application/x-www-form-urlencoded"),
        ]
        var tls = settings.tls
        if tls.serverName.isEmpty { tls.serverName = url.host }
        var phases = HTTPProbe.Phases()
        // Its own proxy_url, resolved as the prober's is; the token URL is then sent by address.
        var proxy: HTTPExchange.Proxy?
        if let proxyURL = settings.proxy {
            guard let proxyAddress = try resolve(proxyURL.host, module: module, deadline: deadline) else { return nil }
            proxy = Self.proxy(proxyURL, at: proxyAddress, to: "\(address)", url, tls: tls)
        }
        let (outcome, _) = try HTTPExchange.run(
            try Self.request(for: url, settings: form), to: address, port: url.port ?? 80, host: url.host, tls: url.secure ? tls : nil,
            via: proxy, from: module.http.address.binding, deadline: deadline, phases: &phases)
        guard case .http(.response(let response, _)) = outcome, (200..<300).contains(response.statusCode) else { return nil }
        return HTTPClientSettings.OAuth2.accessToken(in: response.body)
    }

    /// The host a probe resolves: the target's, or with skip_resolve_phase_with_proxy the
    /// proxy's, which then resolves the target's name itself (blackbox_exporter's http.go).
    static func resolvedHost(of request: ExporterRouter.ProbeRequest) -> String {
        let settings = request.module.http
        guard request.module.prober == .http, settings.skipResolvePhaseWithProxy, let proxy = settings.proxy else {
            return request.target.host
        }
        return proxy.host
    }

    /// The final response against the module's conditions, in blackbox_exporter's order:
    /// why it fails them, nil when it passes. A pattern that fails sets
    /// probe_failed_due_to_regex.
    static func judge(_ response: HTTPResponse, _ settings: HTTPProberSettings, into http: inout ProbeMeasurement.HTTP)
        -> ProbeFailureReason?
    {
        if !settings.failIfHeaderMatches.isEmpty || !settings.failIfHeaderNotMatches.isEmpty {
            guard headersPass(response, settings) else {
                http.failedDueToRegex = true
                return .headerRegex
            }
        }
        if let limit = settings.bodySizeLimit, response.body.count > limit { return .bodyTooLarge }
        if !settings.failIfBodyMatchesRegexp.isEmpty || !settings.failIfBodyNotMatchesRegexp.isEmpty {
            let passes =
                !settings.failIfBodyMatchesRegexp.contains { $0.matches(utf8: response.body) }
                && settings.failIfBodyNotMatchesRegexp.allSatisfy { $0.matches(utf8: response.body) }
            guard passes else {
                http.failedDueToRegex = true
                return .bodyRegex
            }
        }
        // Go's Response.Proto: "HTTP/1.0", "HTTP/1.1", "HTTP/2.0".
        let proto = "HTTP/" + (http.version == 2 ? "2.0" : "\(http.version)")
        if !settings.validHTTPVersions.isEmpty, !settings.validHTTPVersions.contains(proto) {
            return .httpVersion
        }
        if http.tls == nil, settings.failIfNotSSL { return .notSSL }
        if http.tls != nil, settings.failIfSSL { return .ssl }
        return nil
    }

    /// blackbox_exporter's matchRegularExpressionsOnHeaders: a missing header fails unless
    /// allow_missing; any value matching fails the first list; no value matching fails the second.
    private static func headersPass(_ response: HTTPResponse, _ settings: HTTPProberSettings) -> Bool {
        func values(_ header: String) -> [String] {
            response.headers.filter { $0.name.lowercased() == header.lowercased() }.map(\.value)
        }
        for match in settings.failIfHeaderMatches {
            let found = values(match.header)
            if found.isEmpty && !match.allowMissing { return false }
            if found.contains(where: match.regexp.matches) { return false }
        }
        for match in settings.failIfHeaderNotMatches {
            let found = values(match.header)
            if found.isEmpty { if match.allowMissing { continue } else { return false } }
            if !found.contains(where: match.regexp.matches) { return false }
        }
        return true
    }

    /// The request's bytes: the module's method, fields and body; a Host field replaces the
    /// target's (as blackbox_exporter sets request.Host); basic_auth, else a bearer token,
    /// as Authorization.
    static func request(for target: ProbeTarget, settings: HTTPProberSettings, token: String? = nil) throws -> HTTPExchange.Request {
        var fields = settings.headers.map { (name: $0.name, value: $0.value) }
        let client = settings.client
        if let token {
            fields.append(("Authorization", "Bearer " + token))
        } else if let auth = client.basicAuth {
            var password = auth.password
            if !auth.passwordFile.isEmpty, case .success(let bytes) = FileContents.read(auth.passwordFile, limit: 64 * 1024) {
                password = trimmed(bytes)
            }
            fields.append(("Authorization", "Basic " + Base64.encoded(Array("\(auth.username):\(password)".utf8))))
        } else if let auth = client.authorization {
            // common's authorization_credentials_file is read at each request, as here.
            var credentials = auth.credentials
            if !auth.credentialsFile.isEmpty, case .success(let bytes) = FileContents.read(auth.credentialsFile, limit: 64 * 1024) {
                credentials = trimmed(bytes)
            }
            fields.append(("Authorization", auth.type + " " + credentials))
        }
        let body = Array(settings.body.utf8)
        let all = HTTPProbe(userAgent: "reach-exporter/1").fields(
            method: settings.method, host: target.host, port: target.port ?? 80, defaultPort: target.secure ? 443 : 80, fields: fields,
            body: body)
        return HTTPExchange.Request(method: settings.method, path: target.path ?? "/", fields: all, body: body)
    }

    /// tls_config for one request: server_name, else the module's Host header, else the
    /// target's host (blackbox_exporter's ServerName choice).
    static func tls(_ settings: HTTPProberSettings, for target: ProbeTarget) -> TLSSettings {
        var tls = settings.client.tls
        if tls.serverName.isEmpty {
            tls.serverName = settings.headers.last { $0.name.lowercased() == "host" }?.value ?? target.host
        }
        if settings.client.enableHTTP2 { tls.applicationProtocols = ["h2", "http/1.1"] }
        return tls
    }

    static func trimmed(_ bytes: [UInt8]) -> String {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        let start = bytes.firstIndex { !whitespace.contains($0) } ?? bytes.endIndex
        let end = bytes.lastIndex { !whitespace.contains($0) }.map { $0 + 1 } ?? start
        return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
    }

    /// Where a Location header points, from the URL that answered it (RFC 9110, 10.2.2, and
    /// RFC 3986, 5.2): an absolute http URL, a scheme-relative `//host/path`, an absolute path,
    /// or a path relative to the current one. nil for any scheme but http and https.
    static func redirectTarget(_ location: String, from current: ProbeTarget) -> ProbeTarget? {
        var location = Substring(location.filter { $0 != " " && $0 != "\t" })
        if let fragment = location.firstIndex(of: "#") { location = location[..<fragment] }
        if location.hasPrefix("//") { return try? ProbeTarget.parse((current.secure ? "https:" : "http:") + location, for: .http) }
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
        lastModified = response.header("Last-Modified").flatMap(UTCTimestamp.secondsSinceEpoch(httpDate:))
        self.version = version
    }
}

extension HTTPProberSettings {
    /// proxy_url, read when the module was; nil without one.
    var proxy: ProxyURL? { client.proxy }
}

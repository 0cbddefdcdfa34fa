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
        // With skip_resolve_phase_with_proxy, `address` is the proxy's (`resolvedHost`).
        let proxyURL = module.http.proxy
        let skipResolve = proxyURL != nil && module.http.skipResolvePhaseWithProxy
        let proxyAddress = try skipResolve ? address : proxyURL.flatMap { try resolve($0.host, module: module, deadline: deadline) }
        if proxyURL != nil, proxyAddress == nil { return measurement.fail(.nameNotResolved) }
        let token = try module.http.client.oauth2.map { try oauth2Token($0, module: module, deadline: deadline) }
        if case .some(nil) = token { return measurement.fail(.oauth2Token) }
        while true {
            let request = try Self.request(for: target, settings: module.http, token: token ?? nil)
            let proxy = proxyAddress.map { Self.proxy(at: $0, port: proxyURL?.port, to: skipResolve ? target.host : "\(address)", target) }
            let (outcome, peer) = try HTTPExchange.run(
                request, to: address, port: target.port ?? 80, host: target.host,
                tls: target.secure ? Self.tls(module.http, for: target) : nil, via: proxy, deadline: deadline, phases: &http.phases)
            http.tls = peer
            let response: HTTPResponse
            switch outcome {
            case .proxyFailed: return measurement.fail(.proxyRefused)
            case .tlsFailed(let why):
                http.tlsFailure = why
                return measurement.fail(.tls(why))
            case .http(.notConnected(let why)):
                measurement.routeRefusal = why.routeRefusal
                return measurement.fail(.connect(why))
            case .http(.response(let answer, let version)):
                let decoded = Self.decoded(answer, module.http)
                response = decoded ?? answer
                http.record(response, version: version)
                if decoded == nil {
                    // blackbox_exporter counts no body it could not read.
                    http.bodyLength = 0
                    return measurement.fail(.bodyDecoding)
                }
            case .http(let other): return measurement.fail(Self.failure(other))
            }
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
    static func proxy(at address: IPAddress, port: UInt16?, to host: String, _ target: ProbeTarget) -> HTTPExchange.Proxy {
        let authority = (host.contains(":") ? "[\(host)]" : host) + ":\(target.port ?? 80)"
        return HTTPExchange.Proxy(address: address, port: port ?? 80, authority: authority)
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
        let credentials = HTTPClientSettings.OAuth2.escaped(settings.clientID) + ":" + HTTPClientSettings.OAuth2.escaped(secret)
        var form = HTTPProberSettings()
        form.method = "POST"
        form.body = settings.form
        form.headers = [
            .init(name: "Authorization", value: "Basic " + Self.base64(Array(credentials.utf8))),
            .init(name: "Content-Type", value: "application/x-www-form-urlencoded"),
        ]
        var tls = settings.tls
        if tls.serverName.isEmpty { tls.serverName = url.host }
        var phases = HTTPProbe.Phases()
        let (outcome, _) = try HTTPExchange.run(
            try Self.request(for: url, settings: form), to: address, port: url.port ?? 80, host: url.host, tls: url.secure ? tls : nil,
            deadline: deadline, phases: &phases)
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
            let body = String(decoding: response.body, as: UTF8.self)
            let passes =
                !settings.failIfBodyMatchesRegexp.contains { $0.matches(body) }
                && settings.failIfBodyNotMatchesRegexp.allSatisfy { $0.matches(body) }
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
            fields.append(("Authorization", "Basic " + base64(Array("\(auth.username):\(password)".utf8))))
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

    /// RFC 4648, 4: base64 with padding, for Basic credentials (RFC 7617, 2).
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var text = ""
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = Array(bytes[start..<min(start + 3, bytes.count)])
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for index in 0..<4 {
                text.append(index <= chunk.count ? alphabet[Int(value >> (18 - 6 * UInt32(index)) & 0x3F)] : "=")
            }
        }
        return text
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
    /// proxy_url as a target: its host and port (80 unless given); nil without one.
    var proxy: ProbeTarget? {
        client.proxyURL.isEmpty ? nil : try? ProbeTarget.parse(client.proxyURL, for: .http)
    }
}

import ReachCommandLine
import ReachCore
import ReachSystem

/// What to do with one HTTP request, decided from its method, request target and the
/// scrape-timeout header alone (no sockets): blackbox_exporter's `/probe` handler
/// (`prober/handler.go`), reach's refusals, and `/metrics`.
public struct ExporterRouter: Sendable {
    public var modules: [ExporterModule]
    public var allow: AllowList
    /// `--timeout-offset`.
    public var timeoutOffset = ExporterRouter.timeoutOffset
    /// smokeping_prober's `--web.telemetry-path`: the metrics there too.
    public var telemetryPath = "/metrics"

    /// blackbox_exporter's `--timeout-offset` default: the probe ends this much before the
    /// scrape would, so its answer is still read.
    public static let timeoutOffset = TimeSpan(milliseconds: 500)
    /// Without a timeout from the scrape: blackbox_exporter's 120 s.
    public static let defaultScrapeTimeout = TimeSpan(seconds: 120)
    /// No probe runs longer, whatever the scrape or the module asks (`timeout=1e300`).
    public static let longestProbe = TimeSpan(seconds: 3600)

    public init(modules: [ExporterModule], allow: AllowList, timeoutOffset: TimeSpan = ExporterRouter.timeoutOffset) {
        self.modules = modules
        self.allow = allow
        self.timeoutOffset = timeoutOffset
    }

    public struct ProbeRequest: Hashable, Sendable {
        public var module: ExporterModule
        public var target: ProbeTarget
        /// How long the probe may take, from the request's arrival.
        public var timeout: TimeSpan
        /// `debug=true`: the probe's log, metrics and module as text, blackbox_exporter's
        /// DebugOutput, instead of the metrics.
        public var debug = false
        /// The `target` parameter as given, for the debug output's log.
        public var targetText = ""
    }

    public enum Route: Hashable, Sendable {
        case metrics
        case probe(ProbeRequest)
        /// `POST /-/reload`: read the configuration file again.
        case reload
        /// A page for a person (`/`, `/config`, `/logs?id=N`).
        case page(Page)
        /// A one-line text answer: why the request is refused, or a health check's.
        case reply(status: Int, text: String)
    }

    /// blackbox_exporter 0.23's pages (`main.go`).
    public enum Page: Hashable, Sendable {
        /// `/`: the links and the recent probes.
        case status
        /// `/config`: the modules in force.
        case configuration
        /// `/logs?id=N`: one recent probe's log.
        case log(id: Int)
        /// `/graph?host=H&ip=I&range=R&size=small`: a continuous target's SmokePing graph.
        case graph(ContinuousTimelines.Target, range: TimeSpan, size: SmokeGraph.Size)
    }

    public func route(method: String, uri: String, scrapeTimeout: String?) -> Route {
        let (path, query) = Self.split(uri)
        if path == telemetryPath, path != "/probe" {
            guard method == "GET" || method == "HEAD" else {
                return .reply(status: 405, text: "Method \(PrintableText.ascii(method)) not allowed")
            }
            return .metrics
        }
        switch path {
        // blackbox_exporter's (and Prometheus's) management endpoints, with their answers
        // (blackbox_exporter main.go): a liveness check, and a reload as SIGHUP does.
        case "/-/healthy":
            guard method == "GET" || method == "HEAD" else {
                return .reply(status: 405, text: "Method \(PrintableText.ascii(method)) not allowed")
            }
            return .reply(status: 200, text: "Healthy")
        case "/-/reload":
            guard method == "POST" else { return .reply(status: 405, text: "This endpoint requires a POST request.") }
            return .reload
        case "/metrics", "/probe", "/", "/config", "/logs", "/graph":
            guard method == "GET" || method == "HEAD" else {
                return .reply(status: 405, text: "Method \(PrintableText.ascii(method)) not allowed")
            }
        default:
            return .reply(status: 404, text: "Not found: \(PrintableText.ascii(path))")
        }
        switch path {
        case "/": return .page(.status)
        case "/config": return .page(.configuration)
        case "/metrics": return .metrics
        default: break
        }
        guard let parameters = Self.parameters(query) else { return .reply(status: 400, text: "Malformed query string") }
        if path == "/logs" {
            // blackbox answers 500 here; a request that names no probe is the client's error.
            guard let id = (parameters.last { $0.0 == "id" }?.1).flatMap({ Int($0) }), id >= 0 else {
                return .reply(status: 400, text: "Invalid probe id")
            }
            return .page(.log(id: id))
        }
        if path == "/graph" { return Self.graph(parameters) }
        let moduleName = parameters.last { $0.0 == "module" }?.1 ?? "http_2xx"
        guard let module = modules.first(where: { $0.name == moduleName }) else {
            return .reply(status: 400, text: "Unknown module \"\(PrintableText.ascii(moduleName))\"")
        }
        let targetText = parameters.last { $0.0 == "target" }?.1 ?? ""
        let target: ProbeTarget
        do {
            target = try ProbeTarget.parse(targetText, for: module.prober)
        } catch {
            return .reply(status: 400, text: PrintableText.ascii(error.description))
        }
        if let refusal = allow.refusal(of: target.host) { return .reply(status: 403, text: refusal) }
        let requested = parameters.last { $0.0 == "timeout" }?.1 ?? scrapeTimeout
        guard let timeout = Self.timeout(requested: requested, module: module, offset: timeoutOffset) else {
            return .reply(status: 400, text: "Failed to parse timeout: '\(PrintableText.ascii(requested ?? ""))'")
        }
        let debug = parameters.last { $0.0 == "debug" }?.1 == "true"
        return .probe(ProbeRequest(module: module, target: target, timeout: timeout, debug: debug, targetText: targetText))
    }

    /// A graph's request: its target, the span it draws (an hour unless `range` says, from a
    /// step to what is kept, in Go's duration form) and its size.
    static func graph(_ parameters: [(String, String)]) -> Route {
        func value(_ name: String) -> String? { parameters.last { $0.0 == name }?.1 }
        guard let host = value("host"), let ip = value("ip") else { return .reply(status: 400, text: "host and ip are needed") }
        var range = ContinuousTimelines.longestRange
        if let text = value("range") {
            let (shortest, longest) = (ContinuousTimelines.stepLength, ContinuousTimelines.longestRange)
            guard let span = try? TimeSpan.parse(text, .go), span >= shortest, span <= longest else {
                let bounds = "\(ExporterModule.goDuration(shortest)) to \(ExporterModule.goDuration(longest))"
                return .reply(status: 400, text: "range '\(PrintableText.ascii(text))' is not a duration from \(bounds)")
            }
            range = span
        }
        let size: SmokeGraph.Size
        switch value("size") {
        case nil, "full": size = .full
        case "small": size = .small
        case let other?: return .reply(status: 400, text: "size '\(PrintableText.ascii(other))' is neither full nor small")
        }
        return .page(.graph(ContinuousTimelines.Target(host: host, ip: ip), range: range, size: size))
    }

    /// blackbox_exporter's getTimeout: the scrape's timeout (120 s without one) less the
    /// offset, or the module's own when that is shorter (or when the offset leaves nothing).
    static func timeout(requested: String?, module: ExporterModule, offset timeoutOffset: TimeSpan = timeoutOffset) -> TimeSpan? {
        var scrape = defaultScrapeTimeout
        if let requested {
            guard let span = try? TimeSpan.parse(requested, .scrapeTimeout), span >= .zero else { return nil }
            if span > .zero { scrape = span }
        }
        let most = scrape - timeoutOffset
        if let own = module.timeout, own > .zero, own < most || most < .zero { return min(own, longestProbe) }
        return min(max(most, .milliseconds(1)), longestProbe)
    }

    static func split(_ uri: String) -> (path: String, query: String) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, "") }
        return (String(uri[..<mark]), String(uri[uri.index(after: mark)...]))
    }

    /// `application/x-www-form-urlencoded` pairs; nil when a %-escape is malformed or the
    /// bytes are not UTF-8.
    static func parameters(_ query: String) -> [(String, String)]? {
        var pairs: [(String, String)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decoded(pieces[0]), let value = decoded(pieces.count > 1 ? pieces[1] : "") else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    static func decoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension DurationGrammar {
    /// X-Prometheus-Scrape-Timeout-Seconds, as blackbox's getTimeout reads it (strconv.ParseFloat:
    /// seconds, an exponent allowed), and the `&timeout=` parameter, which may carry a unit
    /// as prometheus/common's model.Duration does ("5s", "250ms"). "1e300" is a day.
    static let scrapeTimeout = DurationGrammar(
        units: [.ms, .s, .m, .h], bareSeconds: true, exponents: true, signed: true, clampsToLongest: true)
}

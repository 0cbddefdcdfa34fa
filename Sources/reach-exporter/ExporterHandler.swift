import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import ReachCommandLine
import ReachCore
import ReachExporter
import ReachSystem

/// What every connection's handler shares: the configuration, the live state, the probe
/// pool and its bound.
final class ExporterContext: Sendable {
    let configuration: ExporterConfigurationFile
    let live: LiveInternetState
    let pool: NIOThreadPool
    let prober: ExporterProber
    let startTime: RealtimeInstant
    /// Probes admitted: running, or queued for a thread of the pool.
    let probes: Admission
    let log: ExporterLog
    let web: WebSource
    /// `--web.route-prefix`, `--web.external-url`.
    let routes: RoutePrefix
    /// The recent probes the page lists (`--history.limit`).
    let history: ProbeHistory
    /// How long each module's probes took, for /metrics.
    let durations = ProbeDurations()
    /// smokeping_prober's targets, probed continuously.
    let smokeping: SmokepingProber
    /// Authorization headers already checked against the users of the time, and the answer: a
    /// bcrypt check takes tens of milliseconds of the event loop (exporter-toolkit keeps such a
    /// cache too).
    private let checked = NIOLockedValueBox<[String: Bool]>([:])

    init(
        configuration: ExporterConfigurationFile, live: LiveInternetState, pool: NIOThreadPool, probes: Admission, log: ExporterLog,
        web: WebSource, routes: RoutePrefix, history: ProbeHistory, smokeping: SmokepingProber
    ) {
        self.smokeping = smokeping
        self.web = web
        self.routes = routes
        self.history = history
        self.configuration = configuration
        self.live = live
        self.pool = pool
        self.probes = probes
        self.log = log
        // The allow list is the command line's: a reload does not change it.
        prober = ExporterProber(allow: configuration.router.allow)
        startTime = .now()
    }


    /// Whether a request with this Authorization header may go on (`--web.config.file`).
    func authorizes(_ header: String?, _ web: WebConfiguration) -> Bool {
        guard !web.basicAuthUsers.isEmpty else { return true }
        let key = web.basicAuthUsers.map { "\($0.name):\($0.value)\n" }.joined() + (header ?? "")
        if let answer = checked.withLockedValue({ $0[key] }) { return answer }
        let answer = web.authorizes(header)
        checked.withLockedValue { cache in
            if cache.count >= 256 { cache.removeAll() }
            cache[key] = answer
        }
        return answer
    }

    var metricsSamples: [MetricSample] {
        ProcessMetrics.samples(ProcessStatistics.current(), startTime: startTime) + configuration.samples + live.samples
            + durations.samples + smokeping.metrics.samples
    }

    /// Reads the configuration file again (SIGHUP, `POST /-/reload`); a file that cannot be
    /// used is said in one line on stderr, and the old configuration stays.
    @discardableResult
    func reload() -> ExporterConfigurationFile.Failure? {
        let failure = configuration.reload(now: .now())
        if let failure {
            log.write(.error, "reload failed, the previous configuration stays: \(failure)")
        } else if !configuration.smokepingGroups.isEmpty || smokeping.isRunning {
            do {
                try smokeping.replace(fileGroups: configuration.smokepingGroups)
                configuration.servesSmokeping = true
            } catch {
                log.write(.error, "cannot start the smokeping probes: \(error)")
            }
            log.write(.info, "configuration read again")
        } else {
            log.write(.info, "configuration read again")
        }
        return failure
    }
}

/// One connection's requests: routed by `ExporterRouter`, probes run on the pool, one
/// answer per request in order (NIOHTTP1's pipelining handler holds the next request
/// until the answer to this one is written).
final class ExporterHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// A GET has no body; one larger than this ends the connection with 413.
    static let maximumBodyBytes = 16 * 1024

    private let shared: ExporterContext
    private var head: HTTPRequestHead?
    private var bodyBytes = 0
    private var closing = false
    /// http_server_config.headers, for the answer to the request in hand.
    private var webHeaders: [(String, String)] = []

    init(shared: ExporterContext) {
        self.shared = shared
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if closing { return }
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            bodyBytes = 0
        case .body(let part):
            bodyBytes += part.readableBytes
            if bodyBytes > Self.maximumBodyBytes {
                closing = true
                respond(context: context, status: .payloadTooLarge, text: "request body too large", keepAlive: false)
            }
        case .end:
            guard let requestHead = head else { return }
            head = nil
            handle(requestHead, context: context)
        }
    }

    /// exporter-toolkit's web handler: its file read for this request (500 when it cannot be
    /// used), its headers kept for the answer, its users asked (401 with a Basic challenge).
    private func admits(_ request: HTTPRequestHead, context: ChannelHandlerContext) -> Bool {
        let web: WebConfiguration
        do {
            web = try shared.web.current()
        } catch {
            shared.log.write(.error, "unable to read the web configuration: \(error)")
            webHeaders = []
            respond(context: context, status: .internalServerError, text: "Internal Server Error", keepAlive: request.isKeepAlive,
                    isHead: request.method == .HEAD)
            return false
        }
        webHeaders = web.headers.map { ($0.name, $0.value) }
        guard shared.authorizes(request.headers.first(name: "Authorization"), web) else {
            respond(context: context, status: .unauthorized, body: Array("Unauthorized\n".utf8), contentType: "text/plain; charset=utf-8",
                    extraHeaders: [("WWW-Authenticate", "Basic")], keepAlive: request.isKeepAlive, isHead: request.method == .HEAD)
            return false
        }
        return true
    }

    /// The request target under `--web.route-prefix`, or nil once redirected or refused 404.
    private func inside(_ request: HTTPRequestHead, context: ChannelHandlerContext) -> String? {
        switch shared.routes.resolve(request.uri) {
        case .route(let inner): return inner
        case .redirect(let status, let location):
            respond(context: context, status: HTTPResponseStatus(statusCode: status), body: [], contentType: "text/html; charset=utf-8",
                    extraHeaders: [("Location", location)], keepAlive: request.isKeepAlive, isHead: request.method == .HEAD)
        case .notFound:
            respond(context: context, status: .notFound, text: "404 page not found", keepAlive: request.isKeepAlive,
                    isHead: request.method == .HEAD)
        }
        return nil
    }

    private func handle(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        guard admits(request, context: context), let uri = inside(request, context: context) else { return }
        let route = shared.configuration.router.route(
            method: request.method.rawValue, uri: uri,
            scrapeTimeout: request.headers.first(name: "X-Prometheus-Scrape-Timeout-Seconds"))
        let keepAlive = request.isKeepAlive
        let isHead = request.method == .HEAD
        let format = Exposition.format(accepting: request.headers.first(name: "Accept"))
        switch route {
        case .reply(let status, let text):
            respond(context: context, status: HTTPResponseStatus(statusCode: status), text: text, keepAlive: keepAlive, isHead: isHead)
        case .reload:
            // A small file, read on the event loop: blackbox_exporter answers after the reload too.
            if let failure = shared.reload() {
                respond(context: context, status: .internalServerError, text: "failed to reload config: \(failure)",
                        keepAlive: keepAlive, isHead: isHead)
            } else {
                respond(context: context, status: .ok, text: "", keepAlive: keepAlive, isHead: isHead)
            }
        case .metrics:
            respond(context: context, status: .ok, body: Exposition.render(shared.metricsSamples, as: format),
                    contentType: format.contentType, keepAlive: keepAlive, isHead: isHead)
        case .page(let page):
            answer(page, context: context, keepAlive: keepAlive, isHead: isHead)
        case .probe(let probe):
            guard shared.probes.admit() else {
                respond(context: context, status: .serviceUnavailable, text: "too many probes waiting: try again later",
                        keepAlive: keepAlive, isHead: isHead)
                return
            }
            let shared = self.shared
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let admitted = MonotonicInstant.now()
            shared.pool.runIfActive(eventLoop: context.eventLoop) { () throws -> [UInt8] in
                defer { shared.probes.release() }
                // The timeout counts from the request, not from a free thread: time spent
                // waiting in the queue is gone from it, so the answer still beats the scrape's.
                var started = probe
                started.timeout -= MonotonicInstant.now() - admitted
                let startTime = RealtimeInstant.now()
                let measurement = try shared.prober.probe(started)
                shared.history.add(started, measurement, started: startTime)
                shared.durations.record(module: probe.module.name, duration: measurement.duration)
                if probe.debug {
                    return ProbeDebugOutput.render(started, target: probe.targetText, measurement: measurement, started: startTime)
                }
                return Exposition.render(measurement.samples, as: format)
            }.whenComplete { result in
                let (handler, context) = bound.value
                switch result {
                case .success(let body):
                    let type = probe.debug ? "text/plain; charset=utf-8" : format.contentType
                    handler.respond(context: context, status: .ok, body: body, contentType: type, keepAlive: keepAlive, isHead: isHead)
                case .failure(let error):
                    handler.respond(context: context, status: .internalServerError, text: "probe could not run: \(error)",
                                    keepAlive: keepAlive, isHead: isHead)
                }
            }
        }
    }

    /// A page for a person: rendered on the event loop from what is in memory (a page is small,
    /// and a person asks for it rarely).
    private func answer(_ page: ExporterRouter.Page, context: ChannelHandlerContext, keepAlive: Bool, isHead: Bool) {
        switch page {
        case .status:
            let rows = shared.smokeping.metrics.pageRows(now: .now())
            let body = StatusPage.render(recent: shared.history.newestFirst, historyLimit: shared.history.limit, continuous: rows)
            respond(context: context, status: .ok, body: body, contentType: StatusPage.contentType,
                    extraHeaders: [("Content-Security-Policy", StatusPage.contentSecurityPolicy)], keepAlive: keepAlive, isHead: isHead)
        case .configuration:
            let body = ConfigurationPage.render(shared.configuration.router.modules)
            respond(context: context, status: .ok, body: body, contentType: ConfigurationPage.contentType, keepAlive: keepAlive,
                    isHead: isHead)
        case .graph(let target, let range, let size):
            guard let body = shared.smokeping.metrics.graph(target, range: range, size: size, now: .now()) else {
                let named = "host \(PrintableText.ascii(target.host)) ip \(PrintableText.ascii(target.ip))"
                respond(context: context, status: .notFound, text: "no continuous target \(named)", keepAlive: keepAlive, isHead: isHead)
                return
            }
            respond(context: context, status: .ok, body: body, contentType: SmokeGraph.contentType,
                    extraHeaders: [("Content-Security-Policy", StatusPage.contentSecurityPolicy)], keepAlive: keepAlive, isHead: isHead)
        case .log(let id):
            guard let entry = shared.history.entry(id: id) else {
                respond(context: context, status: .notFound, text: "Probe id not found", keepAlive: keepAlive, isHead: isHead)
                return
            }
            respond(context: context, status: .ok, body: entry.log, contentType: "text/plain; charset=utf-8", keepAlive: keepAlive,
                    isHead: isHead)
        }
    }

    private func respond(
        context: ChannelHandlerContext, status: HTTPResponseStatus, text: String, keepAlive: Bool, isHead: Bool = false
    ) {
        respond(context: context, status: status, body: Array((text + "\n").utf8), contentType: "text/plain; charset=utf-8",
                keepAlive: keepAlive, isHead: isHead)
    }

    private func respond(
        context: ChannelHandlerContext, status: HTTPResponseStatus, body: [UInt8], contentType: String = Exposition.contentType,
        extraHeaders: [(String, String)] = [], keepAlive: Bool, isHead: Bool = false
    ) {
        guard context.channel.isActive else { return }
        var headers = HTTPHeaders(webHeaders + extraHeaders)
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: "\(body.count)")
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !isHead {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { bound.value.close(promise: nil) }
        }
        if keepAlive { context.triggerUserOutboundEvent(HeadGuard.AnswerSent(), promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}

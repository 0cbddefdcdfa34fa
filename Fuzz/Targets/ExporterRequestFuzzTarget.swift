import ReachCore
import ReachSystem

/// One HTTP request as reach-exporter's router sees it: the input split at NUL bytes into
/// method, request target and scrape-timeout header (absent when there is no second NUL).
/// Besides "no trap": a probe is allowed by the allow list and bounded in time; a log page's
/// id is not negative, a graph's span within what the timelines keep; a refusal has a
/// status the router documents and one short printable line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExporterRequest(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let parts = FuzzInput.bytes(start, count).split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    let method = parts.count > 1 ? parts[0] : "GET"
    let uri = parts.count > 1 ? parts[1] : parts.first ?? ""
    let header = parts.count > 2 ? parts[2] : nil
    switch FuzzRouter.router.route(method: method, uri: uri, scrapeTimeout: header) {
    case .probe(let probe):
        precondition(probe.timeout > .zero && probe.timeout <= ExporterRouter.longestProbe, "timeout \(probe.timeout)")
        precondition(FuzzRouter.router.allow.refusal(of: probe.target.host) == nil, "probe of \(probe.target.host) outside --allow")
        if probe.module.prober == .tcp || probe.module.prober == .http { precondition((probe.target.port ?? 0) > 0, "no port") }
    case .reply(let status, let text):
        precondition([200, 400, 403, 404, 405].contains(status), "status \(status)")
        precondition(text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, "unprintable reason '\(text)'")
        precondition(text.utf8.count <= 260, "reason of \(text.utf8.count) bytes")
    case .page(.log(let id)):
        precondition(id >= 0, "log id \(id)")
    case .page(.graph(_, let range, _)):
        precondition(range >= ContinuousTimelines.stepLength && range <= ContinuousTimelines.longestRange, "graph range \(range)")
    case .metrics, .reload, .page(.status), .page(.configuration):
        break
    }
    return 0
}

enum FuzzRouter {
    static let router = ExporterRouter(
        modules: ExporterModule.defaults + [ExporterModule(name: "quick", prober: .icmp, timeout: .seconds(2))],
        allow: AllowList(entries: [
            try! AllowList.entry("198.51.100.0/24"), try! AllowList.entry("2001:db8::/32"), try! AllowList.entry("web.lab"),
            try! AllowList.entry("*.probe.lab"),
        ]))
}

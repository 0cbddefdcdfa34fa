import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ReachCore
import ReachExporter
import ReachSystem

/// reach-exporter: exit 0 on SIGINT/SIGTERM, 64 for a wrong command line, 71 when the
/// capability set cannot be narrowed, 78 for a configuration file that cannot be used
/// (sysexits.h EX_USAGE, EX_OSERR, EX_CONFIG), 1 when the server cannot start or the
/// kernel's events stop. With `--config.check`, 0 or 1 as blackbox_exporter's.
func fail(_ message: String, status: Int32) -> Never {
    OutputChannel.standardError.write("reach-exporter: \(message)\n")
    CurrentProcess.exit(status: status)
}

CurrentProcess.ignoreBrokenPipes()
// Two arenas: the event loop's and one the probe threads share (they allocate little, briefly).
CurrentProcess.limitMallocArenas(2)
let options: ExporterOptions
do {
    options = try ExporterOptions.parse(Array(CommandLine.arguments.dropFirst()), program: CommandLine.arguments.first)
} catch {
    fail(error.message, status: 64)
}
// Help, the version, a completion script: printed, and nothing served.
if let text = options.text {
    OutputChannel.standard.write(text)
    OutputChannel.standard.flush()
    CurrentProcess.exit(status: 0)
}

let log = options.log
let configuration: ExporterConfigurationFile
do {
    configuration = try ExporterConfigurationFile(
        path: options.configPath, allow: options.allow, timeoutOffset: options.timeoutOffset, now: .now(),
        mayBeMissing: options.smokeping.configMayBeMissing, telemetryPath: options.smokeping.telemetryPath)
} catch {
    if options.checkConfigurationOnly {
        log.write(.error, "error loading config: \(error)")
        CurrentProcess.exit(status: 1)
    }
    fail(error.description, status: 78)
}
var web = WebConfiguration()
if let path = options.webConfigPath, !options.checkConfigurationOnly {
    do {
        web = try WebConfiguration.read(path)
        // exporter-toolkit loads the certificate and key once before serving: a pair that
        // cannot be served stops the start, not only each handshake.
        if let tls = web.tls { _ = try TLSServing.handler(tls) }
    } catch {
        fail(error.description, status: 78)
    }
}
if options.checkConfigurationOnly {
    log.write(.info, "config file is ok: \(options.configPath ?? "the built-in modules")")
    CurrentProcess.exit(status: 0)
}

// ICMP probes open their sockets as `reach ping` does (iputils ping_common.c): only
// CAP_NET_RAW kept permitted, raised around socket(). Set before any thread starts, so
// every thread inherits it (capabilities are per thread). If that cannot be done, the
// exporter does not start with more than it should hold (EX_OSERR, as reach does).
do {
    try Capabilities.limitToNetRaw()
} catch {
    fail("system failure: \(error)", status: 71)
}

// SIGHUP reads the configuration again (blackbox_exporter does the same). Blocked here,
// before any other thread starts, so that every thread inherits the mask and only the
// reload thread's signalfd sees it.
let hangUps: SignalDescriptor
do {
    hangUps = try SignalDescriptor.hangUps()
} catch {
    fail("cannot take SIGHUP: \(error)", status: 1)
}

let live = LiveInternetState(probing: !options.probes.isEmpty)
let watchProbing = options.probes.isEmpty
    ? nil
    : WatchProbing(
        checker: ConnectivityChecker(
            specs: options.probes, timeout: options.probeTimeout,
            runner: { () -> NetworkProbeRunner in
                var runner = NetworkProbeRunner()
                runner.dropsCapabilities = true
                return runner
            }()),
        interval: options.probeInterval)
/// The end: the watch's thread sees SIGINT or SIGTERM (or its events fail) and closes the
/// listening sockets; the main thread, waiting on them, then shuts the loop and the pool
/// down and exits with the status.
final class Shutdown: Sendable {
    private let state = NIOLockedValueBox<(status: Int32?, servers: [Channel])>((nil, []))

    func begin(status: Int32) {
        let servers = state.withLockedValue { state -> [Channel] in
            state.status = state.status ?? status
            return state.servers
        }
        if servers.isEmpty { CurrentProcess.exit(status: status) }
        for server in servers { server.close(promise: nil) }
    }

    /// Registers a listening socket; closes it at once if the end came first.
    func serving(_ server: Channel) {
        let ended = state.withLockedValue { state -> Bool in
            state.servers.append(server)
            return state.status != nil
        }
        if ended { server.close(promise: nil) }
    }

    var status: Int32 { state.withLockedValue { $0.status ?? 0 } }
}
let shutdown = Shutdown()

do {
    // The watch's signalfd blocks SIGINT and SIGTERM in this thread first: the server's
    // threads, started after, inherit the mask, and the watch's thread sees the signal.
    try live.start(probing: watchProbing) { end, failure in
        if let failure { log.write(.error, "the kernel's events stopped: \(failure)") }
        shutdown.begin(status: failure == nil && end == .interrupted ? 0 : 1)
    }
} catch {
    fail("cannot watch the kernel's events: \(error)", status: 1)
}

// smokeping_prober's targets (the file's and the operands'), probed from now on: started
// after the signal masks above, which its threads inherit.
let smokeping = SmokepingProber(
    fileGroups: configuration.smokepingGroups, fixedGroups: options.smokeping.commandLineGroup.map { [$0] } ?? [],
    layout: options.smokeping.layout, resolveInterval: options.smokeping.resolveInterval, log: log)
configuration.servesSmokeping = options.smokeping.mode || options.smokeping.commandLineGroup != nil
    || !configuration.smokepingGroups.isEmpty
do {
    try smokeping.start()
} catch {
    fail("cannot start the smokeping probes: \(error)", status: 1)
}

// The sockets systemd passed (sd_listen_fds(3)), checked before any thread starts.
let passedDescriptors = options.systemdSocket ? SocketActivation.descriptors() : []
if options.systemdSocket && passedDescriptors.isEmpty { fail("no socket activation file descriptors found", status: 1) }

let pool = NIOThreadPool(numberOfThreads: options.concurrency)
pool.start()
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let connections = Admission(maximum: options.maximumConnections)
let shared = ExporterContext(
    configuration: configuration, live: live, pool: pool, probes: Admission(maximum: options.concurrency + options.queueLength), log: log,
    web: WebSource(path: options.webConfigPath, initial: web), routes: options.routes, history: ProbeHistory(limit: options.historyLimit),
    smokeping: smokeping)
do {
    try DetachedThread.start {
        while (try? hangUps.next()) != nil { shared.reload() }
    }
} catch {
    fail("cannot start the reload thread: \(error)", status: 1)
}
let headBytes = options.maximumHeadBytes
let headTimeout = TimeAmount.milliseconds(options.headerTimeout.milliseconds)

let serveTLS = web.tls != nil
if serveTLS { log.write(.info, "TLS is enabled") }

let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        guard connections.admit() else { return channel.close() }
        channel.closeFuture.whenComplete { _ in connections.release() }
        return channel.eventLoop.makeCompletedFuture {
            let operations = channel.pipeline.syncOperations
            if serveTLS {
                // Read again for each connection: a renewed certificate is served at once.
                do {
                    try operations.addHandler(try shared.web.tlsHandler())
                } catch {
                    log.write(.error, "TLS handshake refused: \(error)")
                    throw error
                }
            }
            try operations.addHandler(HeadGuard(maximumBytes: headBytes, timeout: headTimeout))
            try operations.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
            try operations.addHandler(ExporterHandler(shared: shared))
        }
    }

// Every address before serving any (exporter-toolkit's ListenAndServe): one that cannot be
// had ends the start.
// A start that fails here stops the threads first, so the process ends as a clean one does.
func failBeforeServing(_ message: String) -> Never {
    try? group.syncShutdownGracefully()
    try? pool.syncShutdownGracefully()
    fail(message, status: 1)
}
var servers: [Channel] = []
for descriptor in passedDescriptors {
    do {
        servers.append(try bootstrap.withBoundSocket(descriptor.rawValue).wait())
    } catch {
        failBeforeServing("cannot serve the passed socket \(descriptor): \(error)")
    }
}
for address in options.listenAddresses where !options.systemdSocket {
    let shown = address.host.contains(":") ? "[\(address.host)]:\(address.port)" : "\(address.host):\(address.port)"
    do {
        servers.append(try bootstrap.bind(host: address.host, port: Int(address.port)).wait())
    } catch let error as IOError {
        // NIO's own description names its Swift function and unbalances a parenthesis; the
        // errno's text is what a user needs ("Address already in use").
        failBeforeServing("cannot listen on \(shown): \(Errno(rawValue: error.errnoCode))")
    } catch {
        failBeforeServing("cannot listen on \(shown): \(error)")
    }
}
for server in servers {
    // An IPv6 address in brackets, as --listen takes it and URLs write it (RFC 3986, 3.2.2).
    let bound = server.localAddress.map { address in
        let host = address.ipAddress ?? options.listenHost
        return (host.contains(":") ? "[\(host)]" : host) + ":\(address.port ?? Int(options.listenPort))"
    } ?? ""
    log.write(.info, "listening on \(bound)")
    shutdown.serving(server)
}
for server in servers { try? server.closeFuture.wait() }
try? group.syncShutdownGracefully()
try? pool.syncShutdownGracefully()
CurrentProcess.exit(status: shutdown.status)

import ReachCommandLine
import ReachCore
import ReachSystem

/// reach-exporter's command line, declared once and read by ReachCommandLine, as `reach`'s.
public struct ExporterOptions: Equatable, Sendable {
    /// Outside Prometheus's default port allocations (9100-9999 are all taken; the list is
    /// the prometheus/prometheus wiki's "Default port allocations"): blackbox_exporter's 9115, a
    /// thousand up.
    public static let defaultPort: UInt16 = 10115

    /// Where to serve: `--listen`, or each `--web.listen-address` (exporter-toolkit's is repeatable).
    public var listenAddresses = [ListenAddress(host: "127.0.0.1", port: ExporterOptions.defaultPort)]
    /// The first address's host and port.
    public var listenHost: String { listenAddresses[0].host }
    public var listenPort: UInt16 { listenAddresses[0].port }
    /// `--web.external-url`, `--web.route-prefix`.
    public var routes = RoutePrefix()
    /// `--web.systemd-socket`: serve the sockets the service manager passed, not the addresses.
    public var systemdSocket = false
    public var allow = AllowList()
    public var configPath: String?
    /// `--probe` specs for `reach_connectivity_state`, as `reach watch --probe` takes them.
    public var probes: [ProbeSpec] = []
    public var probeInterval = TimeSpan(milliseconds: 60_000)
    public var probeTimeout = TimeSpan(milliseconds: 5_000)
    /// Probes running at once; more wait in a queue of `queueLength`, then 503.
    public var concurrency = 16
    public var queueLength = 256
    /// A request's head must have arrived this long after the connection opened (or the last
    /// answer was sent): a client sending one byte a second is cut off.
    public var headerTimeout = TimeSpan(milliseconds: 5_000)
    /// A request's head (request line and headers) may be at most this long.
    public var maximumHeadBytes = 8 * 1024
    /// Connections open at once; more are closed as soon as they are accepted.
    public var maximumConnections = 2048
    /// What to print instead of serving: help, the version, a completion script, the options.
    public var text: String?
    /// `--config.check`: read the configuration, say whether it is usable, and exit.
    public var checkConfigurationOnly = false
    /// `--web.config.file`: exporter-toolkit's web configuration (basic_auth_users, TLS).
    public var webConfigPath: String?
    /// `--timeout-offset`: what is taken off the scrape's timeout (blackbox_exporter's 0.5 s).
    public var timeoutOffset = ExporterRouter.timeoutOffset
    /// `--log.level`, `--log.format`.
    public var log = ExporterLog()
    /// `--history.limit`: blackbox_exporter's probe history for its web page; reach keeps none.
    public var historyLimit = 100

    public init() {}

    public struct ListenAddress: Equatable, Sendable {
        public var host: String
        public var port: UInt16
    }

    /// The command line as written, each value checked by `parse`.
    struct Words {
        var listens: [String] = []
        var externalURL: String?
        var routePrefix: String?
        var systemdSocket = false
        var allow: [String] = []
        var config: String?
        var probes: [String] = []
        var probeInterval: String?
        var probeTimeout: String?
        var concurrency: String?
        var queue: String?
        var headerTimeout: String?
        var maxConnections: String?
        var configCheck = false
        var webConfig: String?
        var timeoutOffset: String?
        var logLevel: String?
        var logFormat: String?
        var historyLimit: String?
    }

    /// reach-exporter's options, each once: the reader, `--help`, the completions and the man
    /// page check (`--list-options`) all come from here.
    static let commandLine = CommandLineDeclaration<Words>(
        about: CommandAbout(
            path: "reach-exporter",
            abstract: "A Prometheus exporter: blackbox_exporter's probes, and the machine's way to the internet.",
            discussion: """
                /probe?target=T&module=M: blackbox_exporter's probes (icmp, tcp_connect, http_2xx) and route. \
                /metrics: the exporter's process and the machine's way to the internet, kept from kernel events. \
                /-/healthy: 200 while serving. SIGHUP or POST /-/reload: read --config again. See reach-exporter(1).
                """),
        operand: .none,
        options: [
            .value(long: "listen", .next, valueName: "address:port", default: "127.0.0.1:\(defaultPort)", help: "Serve HTTP here.") {
                $0.listens.append($1)
            },
            .values(
                long: "allow", .next, valueName: "cidr|host|*.suffix|*",
                help: "Targets /probe may probe (repeatable); without it, every target is refused."
            ) { $0.allow.append($1) },
            .value(long: "config", .next, valueName: "file", help: "blackbox.yml's modules (blackbox_exporter's format).") {
                $0.config = $1
            },
            // blackbox_exporter 0.23's own flags (its main.go, exporter-toolkit's web flags,
            // promlog's), as Debian's /etc/default/prometheus-blackbox-exporter writes them.
            .value(long: "config.file", .next, valueName: "file", help: "The same as --config (blackbox_exporter's name).") {
                $0.config = $1
            },
            .flag(long: "config.check", help: "Read the configuration, say whether it is usable, and exit (0 or 1).") {
                $0.configCheck = true
            },
            .values(
                long: "web.listen-address", .next, valueName: "[address]:port", help: "The same as --listen; no address: all (repeatable)."
            ) { $0.listens.append($1) },
            .value(
                long: "web.external-url", .next, valueName: "url",
                help: "The URL the exporter is reached at; its path prefixes every endpoint."
            ) { $0.externalURL = $1 },
            .flag(long: "web.systemd-socket", help: "Serve the sockets systemd passes (sd_listen_fds), not the addresses.") {
                $0.systemdSocket = true
            },
            .value(long: "web.route-prefix", .next, valueName: "path", help: "Serve every endpoint under this path (default: the URL's).") {
                $0.routePrefix = $1
            },
            .value(
                long: "web.config.file", .next, valueName: "file", help: "exporter-toolkit's web configuration: TLS, basic_auth_users."
            ) { $0.webConfig = $1 },
            .value(
                long: "timeout-offset", .unconditional, valueName: "seconds", default: "0.5",
                help: "Taken off the scrape's timeout, so that the answer is read in time."
            ) { $0.timeoutOffset = $1 },
            .value(long: "log.level", .next, valueName: "level", default: "info", help: "Log this and above: debug, info, warn, error.") {
                $0.logLevel = $1
            },
            .value(long: "log.format", .next, valueName: "format", help: "Log lines as logfmt or json (default: reach's plain lines).") {
                $0.logFormat = $1
            },
            .value(
                long: "history.limit", .unconditional, valueName: "n", default: "100",
                help: "Accepted for blackbox_exporter's command lines; reach keeps no probe history."
            ) { $0.historyLimit = $1 },
            .values(
                long: "probe", .next, valueName: "spec",
                help: "Connectivity for reach_connectivity_state: icmp:HOST, tcp:HOST:PORT or http://HOST[:PORT]/PATH (repeatable)."
            ) { $0.probes.append($1) },
            .value(
                long: "probe-interval", .unconditional, valueName: "duration", default: "60s", help: "Run the --probe checks this often."
            ) { $0.probeInterval = $1 },
            .value(long: "probe-timeout", .unconditional, valueName: "duration", default: "5s", help: "Bound on each --probe check.") {
                $0.probeTimeout = $1
            },
            .value(long: "concurrency", .unconditional, valueName: "n", default: "16", help: "Probes running at once (1-1024).") {
                $0.concurrency = $1
            },
            .value(
                long: "queue", .unconditional, valueName: "n", default: "256", help: "Probes waiting beyond those, then 503 (0-100000)."
            ) { $0.queue = $1 },
            .value(
                long: "header-timeout", .unconditional, valueName: "duration", default: "5s",
                help: "A request's head must arrive within this long of the connection's start (else 408)."
            ) { $0.headerTimeout = $1 },
            .value(
                long: "max-connections", .unconditional, valueName: "n", default: "2048",
                help: "Connections open at once; more are closed at once (1-1000000)."
            ) { $0.maxConnections = $1 },
        ])

    /// The options' help (`reach-exporter --help`).
    public static var usage: String {
        let extraOptions = [HelpText.Entry("--version", "Show the version."), HelpText.Entry("-h, --help", "Show help information.")]
        return HelpText.command(commandLine.summary, extraOptions: extraOptions)
    }

    public static func parse(_ arguments: [String]) throws(UsageError) -> ExporterOptions {
        var options = ExporterOptions()
        var words = Words()
        switch arguments.first {
        case "--generate-completion-script":
            guard arguments.count == 2 else { throw UsageError("--generate-completion-script needs one shell: bash, zsh or fish") }
            let program = CompletionProgram(
                name: "reach-exporter", commands: [commandLine.summary], programOptions: ["--help", "--version"])
            options.text = try Completions.script(for: arguments[1], program: program)
            return options
        case "--list-options":
            options.text = OptionList.text([commandLine.summary])
            return options
        default: break
        }
        switch try commandLine.parse(arguments[...], into: &words) {
        case .help:
            options.text = usage
            return options
        case .version:
            options.text = "reach-exporter \(ReachVersion.current)\n"
            return options
        case .run: break
        }
        for text in words.allow {
            do {
                options.allow.entries.append(try AllowList.entry(text))
            } catch {
                throw UsageError(error.description)
            }
        }
        options.configPath = words.config
        for text in words.probes {
            do {
                options.probes.append(try ProbeSpec.parse(text))
            } catch {
                throw UsageError("--probe: " + error.message(quoting: PrintableText.ascii))
            }
        }
        if let text = words.probeInterval { options.probeInterval = try duration("--probe-interval", text) }
        if let text = words.probeTimeout { options.probeTimeout = try duration("--probe-timeout", text) }
        if let text = words.headerTimeout { options.headerTimeout = try duration("--header-timeout", text) }
        if let text = words.concurrency { options.concurrency = try count("--concurrency", text, range: 1...1024) }
        if let text = words.queue { options.queueLength = try count("--queue", text, range: 0...100_000) }
        if let text = words.maxConnections { options.maximumConnections = try count("--max-connections", text, range: 1...1_000_000) }
        try readBlackboxWords(words, into: &options)
        return options
    }

    /// blackbox_exporter's flags, each checked as its kingpin declaration checks it.
    static func readBlackboxWords(_ words: Words, into options: inout ExporterOptions) throws(UsageError) {
        options.checkConfigurationOnly = words.configCheck
        if !words.listens.isEmpty {
            options.listenAddresses = []
            for text in words.listens {
                let (host, port) = try listenAddress(text)
                options.listenAddresses.append(ListenAddress(host: host, port: port))
            }
        }
        // blackbox_exporter: the external URL cannot be inferred from a socket it was given.
        if words.systemdSocket, (words.externalURL ?? "").isEmpty {
            throw UsageError("--web.systemd-socket needs --web.external-url: the URL cannot be inferred from a passed socket")
        }
        options.systemdSocket = words.systemdSocket
        options.routes = try RoutePrefix(
            externalURL: words.externalURL, routePrefix: words.routePrefix, port: options.listenPort, hostname: RoutePrefix.hostname)
        options.webConfigPath = words.webConfig
        if let text = words.timeoutOffset {
            guard let span = try? TimeSpan.parse(text, .timeoutOffset), span >= .zero else {
                throw UsageError("--timeout-offset: '\(PrintableText.ascii(text))' is not a number of seconds from 0 to 3600")
            }
            options.timeoutOffset = span
        }
        if let text = words.logLevel {
            guard let level = ExporterLog.Level.allCases.first(where: { $0.name == text }) else {
                throw UsageError("--log.level: '\(PrintableText.ascii(text))' is not one of debug, info, warn, error")
            }
            options.log.level = level
        }
        if let text = words.logFormat {
            guard let format = ExporterLog.Format(rawValue: text), format != .plain else {
                throw UsageError("--log.format: '\(PrintableText.ascii(text))' is not one of logfmt, json")
            }
            options.log.format = format
        }
        if let text = words.historyLimit { options.historyLimit = try count("--history.limit", text, range: 0...Int(UInt32.max)) }
    }

    static func listenAddress(_ text: String) throws(UsageError) -> (String, UInt16) {
        let example = "127.0.0.1:\(defaultPort), [::1]:\(defaultPort)"
        let problem = UsageError("--listen: '\(PrintableText.ascii(text))' is not ADDRESS:PORT (\(example))")
        guard let colon = text.lastIndex(of: ":") else { throw problem }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // Go's net.Listen: no address is every address, both families (":9115").
        if host.isEmpty { host = "::" }
        let portText = text[text.index(after: colon)...]
        guard let port = UInt16(portText), portText.allSatisfy(\.isASCII), (try? IPAddress.parse(host)) != nil else { throw problem }
        return (host, port)
    }

    static func duration(_ name: String, _ text: String) throws(UsageError) -> TimeSpan {
        guard let span = try? TimeSpan.parse(text), span.milliseconds > 0 else {
            throw UsageError("\(name): '\(PrintableText.ascii(text))' is not a positive duration (5, 1.5s, 300ms)")
        }
        return span
    }

    static func count(_ name: String, _ text: String, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("\(name): '\(PrintableText.ascii(text))' is not a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}

extension DurationGrammar {
    /// blackbox_exporter's --timeout-offset, a kingpin Float64 (strconv.ParseFloat): seconds,
    /// an exponent allowed, an hour at most.
    static let timeoutOffset = DurationGrammar(units: [], bareSeconds: true, exponents: true, signed: true, longest: .seconds(3600))
}

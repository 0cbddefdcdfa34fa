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
    public var listenAddresses = [ExporterOptions.defaultListen]
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
    public var probeInterval = Defaults.probeInterval
    public var probeTimeout = Defaults.probeTimeout
    /// Probes running at once; more wait in a queue of `queueLength`, then 503.
    public var concurrency = Defaults.concurrency
    public var queueLength = Defaults.queueLength
    /// A request's head must have arrived this long after the connection opened (or the last
    /// answer was sent): a client sending one byte a second is cut off.
    public var headerTimeout = Defaults.headerTimeout
    /// A request's head (request line and headers) may be at most this long.
    public var maximumHeadBytes = 8 * 1024
    /// Connections open at once; more are closed as soon as they are accepted.
    public var maximumConnections = Defaults.maximumConnections
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
    /// `--history.limit`: how many recent probes the page at `/` lists with their logs
    /// (blackbox_exporter's probe history).
    public var historyLimit = Defaults.historyLimit
    /// smokeping_prober's command line: its hosts, their pace, its buckets and paths.
    public var smokeping = SmokepingOptions()

    public init() {}

    /// The values of the options not given, written once: the fields and help read them.
    enum Defaults {
        static let probeInterval = TimeSpan.seconds(60)
        static let probeTimeout = TimeSpan.seconds(5)
        static let concurrency = 16
        static let queueLength = 256
        static let headerTimeout = TimeSpan.seconds(5)
        static let maximumConnections = 2048
        static let historyLimit = 100
    }

    public struct ListenAddress: Equatable, Sendable {
        public var host: String
        public var port: UInt16
    }

    /// The command line as read: the typed options' values in `options`, the others as
    /// written, checked by `parse`.
    struct Words {
        var options = ExporterOptions()
        /// Whether an address was given, which replaces the default one.
        var listening = false
        var externalURL: String?
        var routePrefix: String?
        var systemdSocket = false
        var config: String?
        var configCheck = false
        var webConfig: String?
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
                /-/healthy: 200 while serving. SIGHUP or POST /-/reload: read \(configOption.spelled) again. \
                See reach-exporter(1).
                """),
        operand: .variadic(OperandName("hosts", help: "Hosts to ping continuously (with \(SmokepingOptions.Option.mode.spelled)).")) {
            $0.options.smokeping.hosts.append($1)
        },
        options: [
            listenOption,
            allowOption,
            configOption,
            // blackbox_exporter 0.23's own flags (its main.go, exporter-toolkit's web flags,
            // promlog's), as Debian's /etc/default/prometheus-blackbox-exporter writes them.
            .value(long: "config.file", .next, valueName: "file", help: "The same as \(configOption.spelled) (blackbox_exporter's name).") {
                $0.config = $1
            },
            .flag(long: "config.check", help: "Read the configuration, say whether it is usable, and exit (0 or 1).") {
                $0.configCheck = true
            },
            .typed(
                long: "web.listen-address", .listenAddress, .next, valueName: "[address]:port", repeats: true,
                help: "The same as \(listenOption.spelled); no address: all (repeatable)."
            ) { $0.listen($1) },
            externalURLOption,
            systemdSocketOption,
            .value(long: "web.route-prefix", .next, valueName: "path", help: "Serve every endpoint under this path (default: the URL's).") {
                $0.routePrefix = $1
            },
            .value(
                long: "web.config.file", .next, valueName: "file", help: "exporter-toolkit's web configuration: TLS, basic_auth_users."
            ) { $0.webConfig = $1 },
            .typed(
                long: "timeout-offset", .timeoutOffset, valueName: "seconds", default: ExporterRouter.timeoutOffset,
                help: "Taken off the scrape's timeout, so that the answer is read in time."
            ) { $0.options.timeoutOffset = $1 },
            .typed(
                long: "log.level", .logLevel, valueName: "level", default: ExporterLog().level,
                help: "Log this and above: debug, info, warn, error."
            ) { $0.options.log.level = $1 },
            .typed(
                long: "log.format", .logFormat, valueName: "format", help: "Log lines as logfmt or json (default: reach's plain lines)."
            ) { $0.options.log.format = $1 },
            historyLimitOption,
            probeOption,
            .typed(
                long: "probe-interval", .positiveDuration, valueName: "duration", default: Defaults.probeInterval,
                help: "Run the \(probeOption.spelled) checks this often."
            ) { $0.options.probeInterval = $1 },
            .typed(
                long: "probe-timeout", .positiveDuration, valueName: "duration", default: Defaults.probeTimeout,
                help: "Bound on each \(probeOption.spelled) check."
            ) { $0.options.probeTimeout = $1 },
            .typed(
                long: "concurrency", .count(1...1024), valueName: "n", default: Defaults.concurrency, help: "Probes running at once."
            ) { $0.options.concurrency = $1 },
            .typed(
                long: "queue", .count(0...100_000), valueName: "n", default: Defaults.queueLength,
                help: "Probes waiting beyond those, then 503."
            ) { $0.options.queueLength = $1 },
            .typed(
                long: "header-timeout", .positiveDuration, valueName: "duration", default: Defaults.headerTimeout,
                help: "A request's head must arrive within this long of the connection's start (else 408)."
            ) { $0.options.headerTimeout = $1 },
            .typed(
                long: "max-connections", .count(1...1_000_000), valueName: "n", default: Defaults.maximumConnections,
                help: "Connections open at once; more are closed at once."
            ) { $0.options.maximumConnections = $1 },
        ] + SmokepingOptions.commandLine { $1(&$0.options.smokeping) })

    // The options other options' help and the exporter's messages name.
    static let listenOption = OptionDeclaration<Words>.typed(
        long: "listen", .listenAddress, .next, valueName: "address:port", default: defaultListen, help: "Serve HTTP here."
    ) { $0.listen($1) }
    static let allowOption = OptionDeclaration<Words>.typed(
        long: "allow", .allowEntry, .next, valueName: "cidr|host|*.suffix|*", repeats: true,
        help: "Targets /probe may probe (repeatable); without it, every target is refused."
    ) { $0.options.allow.entries.append($1) }
    static let configOption = OptionDeclaration<Words>.value(
        long: "config", .next, valueName: "file", help: "blackbox.yml's modules (blackbox_exporter's format)."
    ) { $0.config = $1 }
    static let probeOption = OptionDeclaration<Words>.typed(
        long: "probe", .probeSpec, .next, valueName: "spec", repeats: true,
        help: "Connectivity for reach_connectivity_state: icmp:HOST, tcp:HOST:PORT or http://HOST[:PORT]/PATH (repeatable)."
    ) { $0.options.probes.append($1) }
    static let systemdSocketOption = OptionDeclaration<Words>.flag(
        long: "web.systemd-socket", help: "Serve the sockets systemd passes (sd_listen_fds), not the addresses."
    ) { $0.systemdSocket = true }
    static let historyLimitOption = OptionDeclaration<Words>.typed(
        long: "history.limit", .count(0...Int(UInt32.max), saysRange: false), valueName: "n", default: Defaults.historyLimit,
        help: "Keep the last n probes (and as many older failures) for the page at / and their logs."
    ) { $0.options.historyLimit = $1 }
    static let externalURLOption = OptionDeclaration<Words>.value(
        long: "web.external-url", .next, valueName: "url", help: "The URL the exporter is reached at; its path prefixes every endpoint."
    ) { $0.externalURL = $1 }
    static let defaultListen = ListenAddress(host: "127.0.0.1", port: defaultPort)

    /// The options' help (`reach-exporter --help`).
    public static var usage: String {
        HelpText.command(commandLine.summary, extraOptions: ProgramOption.helpEntries)
    }

    /// `program`: the name the exporter was run by (`smokeping_prober` means `--smokeping`).
    public static func parse(_ arguments: [String], program: String? = nil) throws(UsageError) -> ExporterOptions {
        var options = ExporterOptions()
        var words = Words()
        switch arguments.first {
        case ProgramOption.completionScript:
            guard arguments.count == 2 else { throw Completions.shellMissing }
            let program = CompletionProgram(
                name: "reach-exporter", commands: [commandLine.summary], programOptions: [ProgramOption.help, ProgramOption.version])
            options.text = try Completions.script(for: arguments[1], program: program)
            return options
        case ProgramOption.listOptions:
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
        case .run: options = words.options
        }
        options.configPath = words.config
        var smokeping = options.smokeping
        smokeping.applyMode(program: program, to: &options, listening: words.listening, config: words.config)
        options.smokeping = smokeping
        // Hosts as operands are smokeping_prober's command line; blackbox_exporter's takes none.
        if !smokeping.mode, let host = smokeping.hosts.first {
            throw UsageError("unexpected argument '\(PrintableText.escaped(host))'")
        }
        if smokeping.hosts.count > SmokepingTargetGroup.mostAddresses {
            let most = SmokepingTargetGroup.mostAddresses
            throw UsageError("\(smokeping.hosts.count) hosts, more than the \(most) one ICMP sequence space keeps apart")
        }
        try readBlackboxWords(words, into: &options)
        return options
    }

    /// blackbox_exporter's flags, each checked as its kingpin declaration checks it.
    static func readBlackboxWords(_ words: Words, into options: inout ExporterOptions) throws(UsageError) {
        options.checkConfigurationOnly = words.configCheck
        // blackbox_exporter: the external URL cannot be inferred from a socket it was given.
        // smokeping_prober serves a passed socket without one (it has no route prefix).
        if words.systemdSocket, (words.externalURL ?? "").isEmpty, !options.smokeping.mode {
            let (socket, url) = (systemdSocketOption.name.spelled, externalURLOption.name.spelled)
            throw UsageError("\(socket) needs \(url): the URL cannot be inferred from a passed socket")
        }
        options.systemdSocket = words.systemdSocket
        options.routes = try RoutePrefix(
            externalURL: words.externalURL, routePrefix: words.routePrefix, port: options.listenPort, hostname: RoutePrefix.hostname)
        options.webConfigPath = words.webConfig
    }

}

extension DurationGrammar {
    /// blackbox_exporter's --timeout-offset, a kingpin Float64 (strconv.ParseFloat): seconds,
    /// an exponent allowed, an hour at most.
    static let timeoutOffset = DurationGrammar(units: [], bareSeconds: true, exponents: true, signed: true, longest: .seconds(3600))
}

extension ValueType where Value == TimeSpan {
    /// --probe-interval, --probe-timeout, --header-timeout: the CLI's durations, at least 1 ms.
    static var positiveDuration: ValueType {
        ValueType(written: { $0.description }, read: { text in
            guard let span = try? TimeSpan.parse(text), span.milliseconds > 0 else {
                return .failure(.said(": '\(PrintableText.ascii(text))' is not a positive duration (5, 1.5s, 300ms)"))
            }
            return .success(span)
        })
    }

    /// --timeout-offset: seconds, as blackbox_exporter's flag takes them.
    static var timeoutOffset: ValueType {
        ValueType(written: { $0.secondsText }, read: { text in
            guard let span = try? TimeSpan.parse(text, .timeoutOffset), span >= .zero else {
                return .failure(.said(": '\(PrintableText.ascii(text))' is not a number of seconds from 0 to 3600"))
            }
            return .success(span)
        })
    }
}

extension ValueType where Value == Int {
    /// A decimal count in `range`, said in help unless `saysRange` is false.
    static func count(_ range: ClosedRange<Int>, saysRange: Bool = true) -> ValueType {
        ValueType(range: saysRange ? "\(range.lowerBound)-\(range.upperBound)" : nil, written: { String($0) }, read: { text in
            guard let number = Int(text), range.contains(number) else {
                return .failure(.said(": '\(PrintableText.ascii(text))' is not a number from \(range.lowerBound) to \(range.upperBound)"))
            }
            return .success(number)
        })
    }
}

extension ValueType where Value == ExporterLog.Level {
    /// --log.level: promlog's level names.
    static var logLevel: ValueType {
        ValueType(written: { $0.name }, read: { text in
            guard let level = ExporterLog.Level.allCases.first(where: { $0.name == text }) else {
                return .failure(.said(": '\(PrintableText.ascii(text))' is not one of debug, info, warn, error"))
            }
            return .success(level)
        })
    }
}

extension ValueType where Value == ExporterLog.Format {
    /// --log.format: promlog's formats (reach's plain lines are the default, not a choice).
    static var logFormat: ValueType {
        ValueType(written: { $0.rawValue }, read: { text in
            guard let format = ExporterLog.Format(rawValue: text), format != .plain else {
                return .failure(.said(": '\(PrintableText.ascii(text))' is not one of logfmt, json"))
            }
            return .success(format)
        })
    }
}

extension ExporterOptions.Words {
    /// `--listen`, `--web.listen-address`: the first given replaces the default address.
    mutating func listen(_ address: ExporterOptions.ListenAddress) {
        if !listening { options.listenAddresses = [] }
        listening = true
        options.listenAddresses.append(address)
    }
}

extension ValueType where Value == ExporterOptions.ListenAddress {
    /// ADDRESS:PORT, an IPv6 address in brackets; no address is every address (Go's net.Listen, ":9115").
    static var listenAddress: ValueType {
        ValueType(written: { $0.host + ":" + String($0.port) }, read: { text in
            let example = "127.0.0.1:\(ExporterOptions.defaultPort), [::1]:\(ExporterOptions.defaultPort)"
            let problem = ValueProblem.said(": '\(PrintableText.ascii(text))' is not ADDRESS:PORT (\(example))")
            guard let colon = text.lastIndex(of: ":") else { return .failure(problem) }
            var host = String(text[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            if host.isEmpty { host = "::" }
            let portText = text[text.index(after: colon)...]
            guard let port = UInt16(portText), portText.allSatisfy(\.isASCII), (try? IPAddress.parse(host)) != nil else {
                return .failure(problem)
            }
            return .success(ExporterOptions.ListenAddress(host: host, port: port))
        })
    }
}

extension ValueType where Value == AllowList.Entry {
    /// --allow: a CIDR, a host name, *.suffix or *.
    static var allowEntry: ValueType {
        ValueType(written: { _ in "" }, read: { text in
            do throws(AllowList.ParseError) {
                return .success(try AllowList.entry(text))
            } catch {
                return .failure(.said(": " + error.description))
            }
        })
    }
}

extension ValueType where Value == ProbeSpec {
    /// --probe: as `reach watch --probe` takes it.
    static var probeSpec: ValueType {
        ValueType(written: { _ in "" }, read: { text in
            do throws(ProbeSpec.ParseError) {
                return .success(try ProbeSpec.parse(text))
            } catch {
                return .failure(.said(": " + error.message(quoting: PrintableText.ascii)))
            }
        })
    }
}

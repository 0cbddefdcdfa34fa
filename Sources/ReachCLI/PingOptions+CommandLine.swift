import ReachCommandLine
import ReachCore
import ReachSystem

extension PingOptions {
    /// What help says the command is.
    static let about = CommandAbout(
        path: "reach ping",
        abstract: "Send ICMP echo requests and report the replies, as iputils ping does.",
        discussion: """
            Durations are seconds as numbers (fractions allowed; \(Option.deadline.spelled) takes whole seconds, as iputils). \
            Exit status: 0 a reply came (with \(Option.count.spelled) and \(Option.deadline.spelled): count replies), \
            1 no reply, 2 name not resolved, \
            64 bad input, 71 system failure, 77 not permitted (see CAPABILITIES in reach(1)).

            Several targets (or \(Option.targetsFrom.spelled), \(Option.generate.spelled), an fping option): fping's model and \
            output, one ICMP socket per family; exit 0 when every target answered (reach(1)).
            """)

    static let commandLine = CommandLineDeclaration<PingOptions>(
        about: about,
        operand: .variadic(
            OperandName("hosts", help: "Host names or IPv4/IPv6 literals; IPv6 may carry %interface. Several: fping's model.")
        ) { $0.hosts.append($1) },
        options: [
            Option.count, Option.interval, Option.timeout, Option.deadline, Option.size, Option.ttl, Option.interface,
            Option.pattern, Option.mtuDiscovery, Option.ipv4, Option.ipv6, Option.quiet, Option.numeric, Option.timestamps,
            Option.outstanding, Option.flood, Option.broadcast, Option.json, Option.period, Option.alive, Option.unreachable,
            Option.eachRTT, Option.targetsFrom, Option.generate, Option.elapsed, Option.stats, Option.loop, Option.squiet,
            Option.percentiles,
        ])

    /// The options the ping session's refusals name.
    static var sessionOptions: PingSession.OptionNames {
        PingSession.OptionNames(ipv4: Option.ipv4.spelled, ipv6: Option.ipv6.spelled, interval: Option.interval.spelled)
    }

    /// `reach ping`'s options, each declared once: the command line lists them and every
    /// message that names one spells it from here. The letters are iputils ping's (ping(8));
    /// the long options with several targets are fping's (fping(8)) where iputils has no letter.
    enum Option {
        typealias Declared = OptionDeclaration<PingOptions>
        // The numeric values parse unconditionally: `-c -1` is a wrong value, not a missing one.
        static let count: Declared = .value(
            "c", .unconditional, valueName: "count",
            help: "Stop after sending count probes (with \(deadline.spelled): after count replies)."
        ) { $0.count = $1 }
        static let interval: Declared = .typed(
            "i", .seconds(allowsZero: true), valueName: "seconds",
            help: """
                Seconds between probes, 0-\(PingSettings.mostSeconds) (default \(PingConfiguration().interval.secondsText); \
                several targets: between any two, default \(PingOptions.fanoutDefaultInterval.secondsText)); \
                below \(PingSession.minimumUserInterval.secondsText) needs CAP_NET_RAW.
                """
        ) { $0.interval = $1 }
        static let timeout: Declared = .typed(
            "W", .seconds(allowsZero: false), valueName: "seconds",
            help: """
                Seconds to wait for each reply, at most \(PingSettings.mostSeconds) \
                (default \(PingConfiguration().timeout.secondsText); several targets: see reach(1)).
                """
        ) { $0.timeout = $1 }
        static let deadline: Declared = .typed(
            "w", .wholeSeconds, valueName: "seconds",
            help: "Stop after this many seconds (0-\(PingSettings.mostSeconds)), whatever is outstanding."
        ) { $0.deadline = $1 }
        static let size: Declared = .typed(
            "s", .dataSize, valueName: "bytes", help: "Data bytes per probe (default \(PingConfiguration().payloadSize))."
        ) { $0.size = $1 }
        static let ttl: Declared = .typed(
            "t", .ttl, valueName: "ttl",
            help: "IP time to live / IPv6 hop limit (\(PingSettings.ttls.lowerBound)-\(PingSettings.ttls.upperBound))."
        ) { $0.ttl = $1 }
        static let interface: Declared = .value("I", .next, valueName: "interface", help: "Interface name or source address.") {
            $0.interface = $1
        }
        static let pattern: Declared = .typed(
            "p", .pattern, .next, valueName: "pattern",
            help: "Fill each probe's data with this pattern: 1 to \(PingSettings.mostPatternBytes) bytes in hex (iputils -p)."
        ) { $0.pattern = $1 }
        static let mtuDiscovery: Declared = .typed(
            "M", .pathMTUDiscovery, .next, valueName: "do|want|dont",
            help: "Path MTU discovery: do (set DF, never fragment), want, or dont (iputils -M)."
        ) { $0.mtuDiscovery = $1 }.offering(["do", "want", "dont"])
        // The other commands' -4 and -6, their flags kept in `ipv4` and `ipv6`.
        static let ipv4: Declared = .member(PathOptions.Option.ipv4, in: families)
        static let ipv6: Declared = .member(PathOptions.Option.ipv6, in: families)
        private static let families: GroupField<PingOptions, PathOptions> = { ping, set in
            var path = PathOptions(ipv4: ping.ipv4, ipv6: ping.ipv6)
            defer { (ping.ipv4, ping.ipv6) = (path.ipv4, path.ipv6) }
            return set(&path)
        }
        static let quiet: Declared = .flag("q", help: "Quiet: the header and the statistics only.") { $0.quiet = true }
        static let numeric: Declared = .flag("n", help: "Numeric output (reach never looks up names of repliers).") { $0.numeric = true }
        static let timestamps: Declared = .flag("D", help: "Print a timestamp before each line.") { $0.timestamps = true }
        static let outstanding: Declared = .flag("O", help: "Report outstanding replies before sending the next probe.") {
            $0.outstanding = true
        }
        static let flood: Declared = .flag(
            "f",
            help: """
                Flood: as fast as replies come, at least \(1000 / PingConfiguration.floodPacing.milliseconds) a second \
                (needs CAP_NET_RAW).
                """
        ) { $0.flood = true }
        static let broadcast: Declared = .flag("b", help: "Allow pinging a broadcast address (iputils -b).") { $0.broadcast = true }
        static let percentiles: Declared = .flag(
            long: "percentiles",
            help: "One more statistics line: the round trips' 50th, 90th and 99th percentiles (estimated within 0.27 %; reach(1))."
        ) { $0.percentiles = true }
        static let json: Declared = .flag(long: "json", help: "One JSON object per event, then a summary (schema in reach(1)).") {
            $0.json = true
        }
        // Several targets: fping's options where iputils has none, by long names.
        static let period: Declared = .typed(
            long: "period", .seconds(allowsZero: false), valueName: "seconds",
            help: """
                Several targets: seconds between probes to one target, at most \(PingSettings.mostSeconds) \
                (fping -p; default \(PingOptions.fanoutDefaultPeriod.secondsText)).
                """
        ) { $0.period = $1 }
        // Each fping letter iputils leaves free or reads otherwise points at its option (fping -a, -u, -C, -g, -e, -l, -Q).
        static let alive: Declared = .flag(long: "alive", help: "Several targets: print the targets that answered (fping -a).") {
            $0.alive = true
        }.standing(for: "fping", letter: "a")
        static let unreachable: Declared = .flag(
            long: "unreachable", help: "Several targets: print the targets that did not answer (fping -u)."
        ) { $0.unreachable = true }.standing(for: "fping", letter: "u")
        static let eachRTT: Declared = .flag(
            long: "each-rtt", help: "Several targets: each probe's round trip in the summary, '-' for a loss (fping -C)."
        ) { $0.eachRTT = true }.standing(for: "fping", letter: "C")
        // The other commands' option, its files kept in `targetsFrom`.
        static let targetsFrom: Declared = .member(TargetListOptions.Option.targetsFrom) { ping, set in
            var list = TargetListOptions(files: ping.targetsFrom)
            defer { ping.targetsFrom = list.files }
            return set(&list)
        }
        static let generate: Declared = .value(
            long: "generate", .next, valueName: "cidr|start",
            help: """
                Ping every host address of a prefix, or from START to the END given as operand \
                (fping -g; at most \(TargetList.maximumTargets)).
                """
        ) { $0.generate = $1 }.standing(for: "fping", letter: "g")
        static let elapsed: Declared = .flag(long: "elapsed", help: "Several targets: each alive line with its round trip (fping -e).") {
            $0.elapsed = true
        }.standing(for: "fping", letter: "e")
        static let stats: Declared = .flag(long: "stats", help: "Several targets: totals over the run on stderr at the end (fping -s).") {
            $0.stats = true
        }
        static let loop: Declared = .flag(long: "loop", help: "Several targets: probe until interrupted, a line per probe (fping -l).") {
            $0.loop = true
        }.standing(for: "fping", letter: "l")
        static let squiet: Declared = .typed(
            long: "squiet", .seconds(allowsZero: false), valueName: "seconds",
            help: """
                Several targets: counters of the last interval every this many seconds (at most \(PingSettings.mostSeconds)), \
                on stderr (fping -Q).
                """
        ) { $0.squiet = $1 }.standing(for: "fping", letter: "Q")
    }
}

extension ValueType where Value == TimeSpan {
    /// Seconds as iputils takes them (-i, -W; fping's -p and -Q as reach spells them): a plain
    /// decimal number, fractions allowed, a day at most; more than 0 unless `allowsZero`.
    static func seconds(allowsZero: Bool) -> ValueType {
        ValueType(written: { $0.secondsText }, read: { text in
            guard let span = try? TimeSpan.parse(text, .seconds) else {
                let range = allowsZero ? "0-\(PingSettings.mostSeconds)" : "more than 0, at most \(PingSettings.mostSeconds)"
                return .failure(.said(": '\(PrintableText.escaped(text))' is not a number of seconds (\(range); such as 1 or 0.2)"))
            }
            if !allowsZero && span == .zero { return .failure(.said(" must be more than 0 seconds")) }
            return .success(span)
        })
    }
}

extension ValueType where Value == TimeSpan {
    /// -w: whole seconds, as iputils reads them (its own tests expect -w0.1 to fail), a day at most.
    static var wholeSeconds: ValueType {
        ValueType(
            written: { $0.secondsText },
            read: { text in
                guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(text),
                    seconds <= PingSettings.mostSeconds
                else {
                    let most = PingSettings.mostSeconds
                    return .failure(.said(": '\(PrintableText.escaped(text))' is not a whole number of seconds (0-\(most))"))
                }
                return .success(.seconds(seconds))
            })
    }
}

extension ValueType where Value == Int {
    /// -s: data bytes; the family is not known yet, so the larger limit here, the target's in
    /// PingSettings.check(for:).
    static var dataSize: ValueType {
        ValueType(
            written: { String($0) },
            read: { text in
                let (ipv4, ipv6) = (ICMPv4().largestEchoData, ICMPv6().largestEchoData)
                guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let size = Int(text), size <= max(ipv4, ipv6) else {
                    return .failure(
                        .said(": '\(PrintableText.escaped(text))' is not a data size (0 to \(ipv4) bytes over IPv4, \(ipv6) over IPv6)"))
                }
                return .success(size)
            })
    }

    /// -t: an IP time to live or IPv6 hop limit.
    static var ttl: ValueType {
        ValueType(
            written: { String($0) },
            read: { text in
                let ttls = PingSettings.ttls
                guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let ttl = Int(text), ttls.contains(ttl) else {
                    let shown = PrintableText.escaped(text)
                    return .failure(.said(": '\(shown)' is not a ttl of \(ttls.lowerBound) to \(ttls.upperBound)"))
                }
                return .success(ttl)
            })
    }
}

extension ValueType where Value == [UInt8] {
    /// -p: iputils' pattern bytes (PingSettings.pattern).
    static var pattern: ValueType {
        ValueType(
            written: { $0.map(PingSettings.hexByte).joined() },
            read: { text in
                guard let pattern = PingSettings.pattern(text) else {
                    let shown = PrintableText.escaped(text)
                    let most = PingSettings.mostPatternBytes
                    return .failure(.said(": '\(shown)' is not a pattern of 1 to \(most) bytes in hex (such as ff or 0a1b)"))
                }
                return .success(pattern)
            })
    }
}

extension ValueType where Value == PathMTUDiscovery {
    /// -M: iputils' words for IP_MTU_DISCOVER.
    static var pathMTUDiscovery: ValueType {
        ValueType(
            written: { $0 == .do ? "do" : $0 == .want ? "want" : "dont" },
            read: { text in
                switch text {
                case "do": return .success(.do)
                case "want": return .success(.want)
                case "dont": return .success(.dont)
                default: return .failure(.said(": '\(PrintableText.escaped(text))' is not do, want or dont"))
                }
            })
    }
}

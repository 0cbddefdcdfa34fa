import ReachCommandLine
import ReachCore
import ReachSystem

/// `reach trace`'s command line as plain values: traceroute 2.1.2's letters (traceroute(8))
/// where they mean the same, typed by their declarations; the run is TraceCommand's.
struct TraceOptions: Equatable {
    /// The host, then traceroute's packet length operand.
    var operands: [String] = []
    var method: TraceMethod = .udp
    var port: UInt16?
    var probesPerHop: Int?
    var maxHops: Int?
    var firstHop: Int?
    var waits: TraceWaits?
    var simultaneous: Int?
    var ipv4 = false
    var ipv6 = false
    var source: IPAddress?
    var interface: String?
    var tos: Int?
    var numeric = false
    var flows: Int?
    /// mtr's report (TraceCommand+Report): rounds, their interval, JSON, extensions shown.
    var report = false
    var rounds: Int?
    var interval: TimeSpan?
    var json = false
    var extensions = false

    static let about = CommandAbout(
        path: "reach trace",
        abstract: "Show the routers on the way to a host, as traceroute does.",
        discussion: """
            Prints traceroute's text line for line (with names unless \(Option.numeric.spelled)); on stderr, the kernel's verdict \
            when the destination is not reachable (hop 0, before any probe) and one closing line: the last hop that answered \
            and why the trace stopped. Exit status: 0 the destination answered, 1 it did not, 2 name not resolved, \
            64 bad input, 71 system failure, 77 not permitted.
            """)

    static let commandLine = CommandLineDeclaration<TraceOptions>(
        about: about,
        operand: .variadic(OperandName("host [packetlen]", help: "The host, then the packet length in bytes (traceroute's).")) {
            $0.operands.append($1)
        },
        options: [
            Option.icmp, Option.udp, Option.tcp, Option.method, Option.port, Option.queries, Option.maxHops, Option.firstHop,
            Option.wait, Option.simultaneous, Option.ipv4, Option.ipv6, Option.source, Option.interface, Option.tos,
            Option.numeric, Option.flows, Option.report, Option.rounds, Option.interval, Option.json, Option.extensions,
        ])

    /// Each option declared once; the letters are traceroute 2.1.2's.
    enum Option {
        typealias Declared = OptionDeclaration<TraceOptions>
        static let icmp: Declared = .flag("I", help: "ICMP echo probes (a datagram socket, else raw with CAP_NET_RAW).") {
            $0.method = .icmp
        }
        static let udp: Declared = .flag("U", help: "UDP probes to a closed port (the default; no privilege).") { $0.method = .udp }
        static let tcp: Declared = .flag("T", help: "TCP SYN probes (needs CAP_NET_RAW).") { $0.method = .tcp }
        static let method: Declared = .typed("M", .traceMethod, .next, valueName: "method", help: "The method: udp, icmp or tcp.") {
            $0.method = $1
        }.offering(TraceMethod.allCases.map(\.rawValue))
        static let port: Declared = .typed(
            "p", .count(1...65535, "a port"), valueName: "port",
            help: "Destination port (UDP \(TraceMethod.udp.defaultPort), TCP \(TraceMethod.tcp.defaultPort)); every probe keeps it."
        ) { $0.port = UInt16($1) }
        static let queries: Declared = .typed(
            "q", .count(TraceSettings.probesPerHopRange, "a number of probes"), valueName: "nqueries",
            default: TraceSettings().probesPerHop, help: "Probes per hop."
        ) { $0.probesPerHop = $1 }
        static let maxHops: Declared = .typed(
            "m", .count(TraceSettings.hopLimits, "a hop count"), valueName: "max_ttl",
            default: TraceSettings().maxHops, help: "The last hop probed."
        ) { $0.maxHops = $1 }
        static let firstHop: Declared = .typed(
            "f", .count(TraceSettings.hopLimits, "a hop count"), valueName: "first_ttl", default: TraceSettings().firstHop,
            help: "The first hop probed."
        ) { $0.firstHop = $1 }
        static let wait: Declared = .typed(
            "w", .traceWaits, valueName: "MAX,HERE,NEAR",
            help: """
                Wait at most MAX seconds for a probe, HERE times an answered probe's round trip of the same hop, NEAR times a \
                later hop's (default 5,3,10; as in traceroute, MAX alone turns HERE and NEAR off).
                """
        ) { $0.waits = $1 }
        static let simultaneous: Declared = .typed(
            "N", .count(TraceSettings.simultaneousRange, "a number of probes"), valueName: "squeries",
            default: TraceSettings().simultaneous, help: "Probes in flight at once."
        ) { $0.simultaneous = $1 }
        static let ipv4: Declared = .member(PathOptions.Option.ipv4, in: families)
        static let ipv6: Declared = .member(PathOptions.Option.ipv6, in: families)
        private static let families: GroupField<TraceOptions, PathOptions> = { trace, set in
            var path = PathOptions(ipv4: trace.ipv4, ipv6: trace.ipv6)
            defer { (trace.ipv4, trace.ipv6) = (path.ipv4, path.ipv6) }
            return set(&path)
        }
        static let source: Declared = .typed("s", .sourceAddress, .next, valueName: "src_addr", help: "Send from this address.") {
            $0.source = $1
        }
        static let interface: Declared = .value("i", .next, valueName: "device", help: "Send through this interface.") {
            $0.interface = $1
        }
        static let tos: Declared = .typed("t", .count(0...255, "a TOS byte"), valueName: "tos", help: "IP TOS / IPv6 traffic class.") {
            $0.tos = $1
        }
        static let numeric: Declared = .flag("n", help: "Print addresses only (no name lookups).") { $0.numeric = true }
        static let flows: Declared = .typed(
            long: "flows", .count(TraceSettings.flowRange, "a number of flows"), valueName: "count",
            help: "Trace this many flows (each its own ports or ICMP identifier) and show where their paths split."
        ) { $0.flows = $1 }
        static let report: Declared = .flag(
            long: "report",
            help: "Send rounds of one probe per hop and print mtr's report (10 rounds unless \(rounds.spelled))."
        ) { $0.report = true }
        static let rounds: Declared = .typed(
            "c", .count(1...1_000_000, "a number of rounds"), valueName: "count", help: "Rounds of the report (default 10, as mtr's)."
        ) { $0.rounds = $1 }
        static let interval: Declared = .typed(
            long: "interval", .seconds(allowsZero: false), valueName: "seconds",
            help: "Seconds between rounds (default 1, as mtr's); alone on a terminal, a live table until q or Ctrl-C."
        ) { $0.interval = $1 }
        static let json: Declared = .member(OutputOptions.Option.json, in: output)
        private static let output: GroupField<TraceOptions, OutputOptions> = { trace, set in
            var output = OutputOptions(json: trace.json)
            defer { trace.json = output.json }
            return set(&output)
        }
        static let extensions: Declared = .flag(
            "e", long: "extensions", help: "Show ICMP extensions (MPLS labels, interface information) on their hop, as traceroute does."
        ) { $0.extensions = true }
    }
}

extension ValueType where Value == Int {
    /// A whole number within `range`: "'0' is not a hop count of 1 to 255".
    static func count(_ range: ClosedRange<Int>, _ what: String) -> ValueType {
        ValueType(
            range: "\(range.lowerBound)-\(range.upperBound)", written: { String($0) },
            read: { text in
                guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text), range.contains(value) else {
                    let shown = PrintableText.escaped(text)
                    return .failure(.said(": '\(shown)' is not \(what) of \(range.lowerBound) to \(range.upperBound)"))
                }
                return .success(value)
            })
    }
}

extension ValueType where Value == TraceMethod {
    /// -M: traceroute's method names that reach has (`default` is UDP).
    static var traceMethod: ValueType {
        ValueType(
            written: { $0.rawValue },
            read: { text in
                if text == "default" { return .success(.udp) }
                guard let method = TraceMethod(rawValue: text) else {
                    return .failure(.said(": unknown method '\(PrintableText.escaped(text))' (udp, icmp or tcp)"))
                }
                return .success(method)
            })
    }
}

extension ValueType where Value == IPAddress {
    /// -s: an address literal.
    static var sourceAddress: ValueType {
        ValueType(
            written: { $0.description },
            read: { text in
                guard let address = try? IPAddress.parse(text) else {
                    return .failure(.said(": '\(PrintableText.escaped(text))' is not an IPv4 or IPv6 address"))
                }
                return .success(address)
            })
    }
}

extension ValueType where Value == TraceWaits {
    /// -w MAX[,HERE[,NEAR]] as traceroute.c set_wait_specs reads it: naming MAX alone sets
    /// HERE and NEAR to 0 (their rules off); any one character separates the numbers.
    static var traceWaits: ValueType {
        ValueType(
            written: { "\($0.maximum.secondsText),\($0.here),\($0.near)" },
            read: { text in
                let parts = text.split(separator: ",", omittingEmptySubsequences: false).flatMap { $0.split(separator: "/") }
                guard (1...3).contains(parts.count), let maximum = try? TimeSpan.parse(String(parts[0]), .seconds) else {
                    return .failure(.said(": '\(PrintableText.escaped(text))' is not MAX[,HERE[,NEAR]] (such as 5 or 5,3,10)"))
                }
                let factors = parts.dropFirst().map { Double($0) }
                guard factors.allSatisfy({ $0.map { $0 >= 0 && $0.isFinite } ?? false }) else {
                    return .failure(.said(": '\(PrintableText.escaped(text))' is not MAX[,HERE[,NEAR]] (such as 5 or 5,3,10)"))
                }
                let numbers = factors.compactMap { $0 }
                return .success(
                    TraceWaits(maximum: maximum, here: numbers.first ?? 0, near: numbers.count > 1 ? numbers[1] : 0))
            })
    }
}

import ReachCore
import ReachSystem

/// reach-exporter's command line. Read here, not by ArgumentParser: the exporter's errors are
/// one line on stderr, and its few options need no command tree.
public struct ExporterOptions: Equatable, Sendable {
    /// Outside Prometheus's default port allocations (9100-9999 are all taken; the list is
    /// the prometheus/prometheus wiki's "Default port allocations"): blackbox_exporter's 9115, a
    /// thousand up.
    public static let defaultPort: UInt16 = 10115

    public var listenHost = "127.0.0.1"
    public var listenPort = ExporterOptions.defaultPort
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
    public var help = false
    public var version = false

    public init() {}

    public struct UsageError: Error, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    public static let usage = """
        usage: reach-exporter [--listen ADDRESS:PORT] [--allow CIDR|HOST|*.SUFFIX|*]... [--config FILE]
                              [--probe SPEC]... [--probe-interval DURATION] [--probe-timeout DURATION]
                              [--concurrency N] [--queue N] [--header-timeout DURATION] [--max-connections N]
                              [--version]
        /probe?target=T&module=M: blackbox_exporter's probes (icmp, tcp_connect, http_2xx) and route.
        /metrics: the exporter's process and the machine's way to the internet, kept from kernel events.
        /-/healthy: 200 while serving. SIGHUP or POST /-/reload: read --config again.
        See reach-exporter(1).

        """

    public static func parse(_ arguments: [String]) throws(UsageError) -> ExporterOptions {
        var options = ExporterOptions()
        var index = 0
        func value(_ name: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError("\(name) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let word = arguments[index]
            var name = word
            var inline: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inline = String(word[word.index(after: equals)...])
            }
            switch name {
            case "--listen":
                (options.listenHost, options.listenPort) = try listenAddress(try value(name, inline: inline))
            case "--allow":
                let text = try value(name, inline: inline)
                do {
                    options.allow.entries.append(try AllowList.entry(text))
                } catch {
                    throw UsageError(error.description)
                }
            case "--config": options.configPath = try value(name, inline: inline)
            case "--probe":
                let text = try value(name, inline: inline)
                do {
                    options.probes.append(try ProbeSpec.parse(text))
                } catch {
                    throw UsageError("--probe: " + error.message(quoting: printable))
                }
            case "--probe-interval": options.probeInterval = try duration(name, try value(name, inline: inline))
            case "--probe-timeout": options.probeTimeout = try duration(name, try value(name, inline: inline))
            case "--header-timeout": options.headerTimeout = try duration(name, try value(name, inline: inline))
            case "--concurrency": options.concurrency = try count(name, try value(name, inline: inline), range: 1...1024)
            case "--queue": options.queueLength = try count(name, try value(name, inline: inline), range: 0...100_000)
            case "--max-connections": options.maximumConnections = try count(name, try value(name, inline: inline), range: 1...1_000_000)
            case "-h", "--help": options.help = true
            case "--version": options.version = true
            default:
                throw UsageError(word.hasPrefix("-") ? "unknown option '\(printable(word))'" : "unexpected argument '\(printable(word))'")
            }
            index += 1
        }
        return options
    }

    static func listenAddress(_ text: String) throws(UsageError) -> (String, UInt16) {
        let problem = UsageError("--listen: '\(printable(text))' is not ADDRESS:PORT (127.0.0.1:\(defaultPort), [::1]:\(defaultPort))")
        guard let colon = text.lastIndex(of: ":") else { throw problem }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let portText = text[text.index(after: colon)...]
        guard let port = UInt16(portText), portText.allSatisfy(\.isASCII), (try? IPAddress.parse(host)) != nil else { throw problem }
        return (host, port)
    }

    static func duration(_ name: String, _ text: String) throws(UsageError) -> TimeSpan {
        guard let span = try? TimeSpan.parse(text), span.milliseconds > 0 else {
            throw UsageError("\(name): '\(printable(text))' is not a positive duration (5, 1.5s, 300ms)")
        }
        return span
    }

    static func count(_ name: String, _ text: String, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("\(name): '\(printable(text))' is not a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    static func printable(_ text: String) -> String { PrintableText.ascii(text) }
}

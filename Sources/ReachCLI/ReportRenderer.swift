import ReachCore
import ReachSystem

/// The JSON schema version; bump it when a field changes meaning or goes away.
let jsonSchemaVersion: Int64 = 1

/// Text for people and JSON for scripts, from one reachability report.
struct ReportRenderer {
    var showsFlags: Bool

    func text(_ report: ReachabilityReport) -> String {
        var text: [UInt8] = []
        write(text: report, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The report's lines, appended to UTF-8 bytes: a list writes thousands, and Strings
    /// grown piece by piece (a label, a description, three addresses a line) were most of
    /// the cost of its text (perf).
    func write(text report: ReachabilityReport, to text: inout [UInt8]) {
        var repeated = RepeatedText()
        write(text: report, to: &text, repeated: &repeated)
    }

    /// The words of the path written last, copied for the next path that reads the same: a
    /// list's lines mostly differ only in their address. Its members are what `write(_:to:)`
    /// reads, each kept apart and compared in place (a PathReport kept whole was copied at
    /// every comparison, which cost more than writing the words).
    struct RepeatedText {
        private var written = false
        private var flags: ReachabilityFlags = []
        private var reason: UnreachableReason?
        private var link: LinkReport?
        private var gateway: IPAddress?
        private var source: IPAddress?
        private var underlyingLink: LinkReport?
        private var expensive = false
        private var delivery: PathDelivery?
        fileprivate private(set) var bytes: [UInt8] = []

        fileprivate func repeats(_ path: PathReport) -> Bool {
            written && flags == path.flags && reason == path.reason && expensive == path.expensive && gateway == path.gateway
                && source == path.source && link == path.link && underlyingLink == path.underlyingLink && delivery == path.delivery
        }

        fileprivate mutating func remember(_ path: PathReport, _ words: ArraySlice<UInt8>) {
            (written, flags, reason, expensive, delivery) = (true, path.flags, path.reason, path.expensive, path.delivery)
            (gateway, source, link, underlyingLink) = (path.gateway, path.source, path.link, path.underlyingLink)
            bytes = Array(words)
        }
    }

    /// The same, a path's words copied from the path before when they are the same.
    func write(text report: ReachabilityReport, to text: inout [UInt8], repeated: inout RepeatedText) {
        if let failure = report.resolutionFailure, case .host(let name) = report.subject {
            text.append(utf8: "\(name): not reachable (name not resolved: \(failure))\n")
            return
        }
        // A loop, not map + joined(): the unspecialized joined() looks up associated-type
        // witnesses at run time, at start-up (docs/PERFORMANCE-NOTES.md has the figure).
        for path in report.paths {
            write(label: path, in: report.subject, to: &text)
            text.append(literal: ": ")
            if repeated.repeats(path) {
                text.append(contentsOf: repeated.bytes)
            } else {
                let start = text.count
                write(path, to: &text)
                repeated.remember(path, text[start...])
            }
            text.append(UInt8(ascii: "\n"))
            if let allPaths = report.allPaths { write(allPaths: allPaths, family: path.family, to: &text) }
        }
        if let connectivity = report.connectivity { text += describe(connectivity).utf8 }
    }

    /// "connectivity: portal (http probe redirected to ...)", then a line per probe.
    func describe(_ connectivity: ConnectivityReport) -> String {
        var text = "connectivity: " + summary(connectivity) + "\n"
        for probe in connectivity.probes {
            let family = probe.family.map { " (\($0.label))" } ?? ""
            text += "  \(probe.spec)\(family): \(probe.outcome.rawValue), \(probe.detail), \(Self.milliseconds(probe.milliseconds)) ms\n"
        }
        return text
    }

    /// "portal (http probe redirected to ...)": the state and the deciding probe's words.
    func summary(_ connectivity: ConnectivityReport) -> String {
        var text = connectivity.state.rawValue
        let deciding: ProbeResult.Outcome? = switch connectivity.state {
        case .portal: .portal
        case .full: .passed
        case .limited: .failed
        case .none: nil
        }
        if let decisive = connectivity.probes.first(where: { $0.outcome == deciding }) {
            text += " (\(decisive.detail))"
        } else if connectivity.state == .none {
            text += " (no usable route; nothing probed)"
        }
        return text
    }

    static func milliseconds(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    func label(for path: PathReport, in subject: ReachabilityReport.Subject) -> String {
        var text: [UInt8] = []
        write(label: path, in: subject, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    func write(label path: PathReport, in subject: ReachabilityReport.Subject, to text: inout [UInt8]) {
        switch subject {
        case .internet: text.append(utf8: path.family.label)
        case .host(let name):
            text.append(utf8: name)
            text.append(literal: " (")
            path.destination.appendDescription(to: &text)
            text.append(UInt8(ascii: ")"))
        case .address(let address): address.appendDescription(to: &text)
        }
    }

    /// "reachable via ethernet eth0, gateway 198.18.0.1, source 198.18.0.2",
    /// "not reachable (no carrier on eth0)".
    func describe(_ path: PathReport) -> String {
        var text: [UInt8] = []
        write(path, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    func write(_ path: PathReport, to text: inout [UInt8]) {
        if let reason = path.reason {
            text.append(literal: "not reachable (")
            text.append(utf8: reason.phrase)
            if let name = path.link?.name {
                text.append(literal: " on ")
                text.append(utf8: name)
            }
            text.append(UInt8(ascii: ")"))
        } else {
            text.append(literal: "reachable")
            // Every host of a subnet, or a group: not one host's path (`ip route get` says broadcast, multicast).
            if let delivery = path.delivery {
                text.append(literal: " (")
                text.append(utf8: delivery.rawValue)
                text.append(UInt8(ascii: ")"))
            }
            // Fields through optional chaining, not `if let link`: copying the optional
            // LinkReport made the runtime instantiate its metadata at start-up (9 K
            // instructions, callgrind).
            if let kind = path.link?.kind, let name = path.link?.name {
                text.append(literal: " via ")
                write(kind: kind, name: name, cellular: path.link?.cellular, to: &text)
            }
            if let kind = path.underlyingLink?.kind, let name = path.underlyingLink?.name {
                text.append(literal: " over ")
                write(kind: kind, name: name, cellular: path.underlyingLink?.cellular, to: &text)
            }
            if let gateway = path.gateway {
                text.append(literal: ", gateway ")
                gateway.appendDescription(to: &text)
            }
            if let source = path.source {
                text.append(literal: ", source ")
                source.appendDescription(to: &text)
            }
            if path.expensive { text.append(literal: ", expensive") }
        }
        if showsFlags {
            text.append(literal: ", flags ")
            text.append(utf8: path.flags.flagString)
        }
    }

    /// "ethernet eth0", "cellular wwan0 (4G LTE, TheOperator, roaming)".
    func write(kind: LinkKind, name: String, cellular: CellularFacts?, to text: inout [UInt8]) {
        text.append(utf8: kind.rawValue)
        text.append(UInt8(ascii: " "))
        text.append(utf8: name)
        guard let cellular else { return }
        var parts: [String] = []
        if let technologies = cellular.technologies, !technologies.members.isEmpty {
            var names = ""
            for member in technologies.members.reversed() { names += (names.isEmpty ? "" : "/") + member.name }
            parts.append((cellular.generation.map { $0.label + " " } ?? "") + names)
        }
        if let name = cellular.operatorName { parts.append(name) }
        if cellular.roaming == true { parts.append("roaming") }
        if !parts.isEmpty {
            text.append(literal: " (")
            for (index, part) in parts.enumerated() { text += ((index == 0 ? "" : ", ") + part).utf8 }
            text.append(UInt8(ascii: ")"))
        }
    }

    func json(_ report: ReachabilityReport, command: String) -> JSONValue {
        var writer = JSONWriter()
        var repeated = RepeatedJSON()
        write(report, command: command, to: &writer, repeated: &repeated)
        return .raw(writer.output)
    }

    /// The report's document with one more member at its end (`host --connect`'s race).
    func json(_ report: ReachabilityReport, command: String, adding key: String, _ value: JSONValue) -> String {
        let document = json(report, command: command).serialized()
        return document.dropLast() + "," + JSONValue.string(key).serialized() + ":" + value.serialized() + "}"
    }

    /// What a report's JSON shares with the report before it in a list, copied when equal.
    struct RepeatedJSON {
        /// `{"schema":1,"command":"addr","target":`
        var opening = JSONMemo<String>()
        /// `"reachable":...` to `"paths":[`
        var verdict = JSONMemo<Verdict>()
        /// A path's members from `"family"` to `"underlying_link"`.
        var route = JSONMemo<Route>()
    }

    struct Verdict: Equatable {
        var reachable: Bool
        var reason: UnreachableReason?
        var resolutionFailure: String?
    }

    /// What a path's members from "family" to "underlying_link" are written from.
    struct Route: Equatable {
        var family: AddressFamily
        var flags: ReachabilityFlags
        var reason: UnreachableReason?
        var link: LinkReport?
        var underlyingLink: LinkReport?
    }

    /// The report's document, written straight into `writer` (a list writes thousands).
    func write(_ report: ReachabilityReport, command: String, to writer: inout JSONWriter, repeated: inout RepeatedJSON) {
        repeated.opening.write(command, to: &writer) { writer in
            writer.beginObject()
            writer.key("schema")
            writer.int(jsonSchemaVersion)
            writer.key("command")
            writer.string(command)
            writer.key("target")
        }
        switch report.subject {
        case .internet: writer.null()
        case .host(let name): writer.string(name)
        case .address(let address): writer.string(address)
        }
        let verdict = Verdict(reachable: report.isReachable, reason: report.reason, resolutionFailure: report.resolutionFailure)
        repeated.verdict.write(verdict, to: &writer) { writer in
            writer.key("reachable")
            writer.bool(verdict.reachable)
            writer.key("reason")
            writer.string(verdict.reason?.rawValue)
            writer.key("resolver_error")
            writer.string(verdict.resolutionFailure)
            writer.key("paths")
            writer.beginArray()
        }
        for path in report.paths { write(path, to: &writer, repeated: &repeated) }
        writer.endArray()
        writer.key("connectivity")
        writer.string(report.connectivity?.state.rawValue)
        writer.key("probes")
        if let connectivity = report.connectivity { writer.value(.array(connectivity.probes.map(json))) } else { writer.null() }
        if case .host = report.subject, command == "host" {
            // getaddrinfo's first: the address a client that tries them in turn tries first (RFC 6724 order).
            writer.key("first_address")
            writer.string(report.paths.first?.destination)
        }
        if let allPaths = report.allPaths { write(allPaths: allPaths, to: &writer) }
        writer.endObject()
    }

    func json(_ probe: ProbeResult) -> JSONValue {
        .object([
            ("kind", .string(probe.spec.kind)),
            ("target", .string(probe.spec.description)),
            ("result", .string(probe.outcome.rawValue)),
            ("time_ms", .number(probe.milliseconds)),
            ("detail", .string(probe.detail)),
            ("location", .optional(probe.location)),
            ("family", .optional(probe.family?.rawValue)),
        ])
    }

    func write(_ path: PathReport, to writer: inout JSONWriter, repeated: inout RepeatedJSON) {
        writer.beginObject()
        writer.key("address")
        writer.string(path.destination)
        let route = Route(family: path.family, flags: path.flags, reason: path.reason, link: path.link, underlyingLink: path.underlyingLink)
        repeated.route.write(route, to: &writer) { write(route, to: &$0) }
        writer.key("gateway")
        writer.string(path.gateway)
        writer.key("source")
        writer.string(path.source)
        writer.key("expensive")
        writer.bool(path.expensive)
        writer.key("delivery")
        writer.string(path.delivery?.rawValue)
        writer.endObject()
    }

    /// A link's object (a path's `link` and `underlying_link`), null for none.
    func write(link: LinkReport?, to writer: inout JSONWriter) {
        guard let link else { return writer.null() }
        writer.beginObject()
        writer.key("name")
        writer.string(link.name)
        writer.key("index")
        writer.int(Int64(link.index))
        writer.key("kind")
        writer.string(link.kind.rawValue)
        writer.key("operstate")
        writer.string(link.operState.description)
        writer.key("cellular")
        if let cellular = link.cellular { writer.value(json(cellular)) } else { writer.null() }
        writer.endObject()
    }

    private func json(_ cellular: CellularFacts) -> JSONValue {
        .object([
            ("generation", .optional(cellular.generation?.name)),
            ("technologies", cellular.technologies.map { .array($0.members.map { .string($0.nick) }) } ?? .null),
            ("operator", .optional(cellular.operatorName)),
            ("operator_code", .optional(cellular.operatorCode)),
            ("roaming", cellular.roaming.map(JSONValue.bool) ?? .null),
            ("signal_percent", cellular.signalPercent.map { .int(Int64($0)) } ?? .null),
            ("modem_state", .optional(cellular.modemState?.name)),
        ])
    }

    /// A path's members from "family" to "underlying_link".
    private func write(_ route: Route, to writer: inout JSONWriter) {
        writer.key("family")
        writer.string(route.family.rawValue)
        writer.key("reachable")
        writer.bool(route.reason == nil)
        writer.key("flags")
        writer.beginArray()
        for name in route.flags.names { writer.string(name) }
        writer.endArray()
        writer.key("flag_string")
        writer.string(route.flags.flagString)
        writer.key("reason")
        writer.string(route.reason?.rawValue)
        writer.key("link")
        write(link: route.link, to: &writer)
        writer.key("underlying_link")
        write(link: route.underlyingLink, to: &writer)
    }
}

import ReachCommandLine
import ReachCore
import ReachSystem

/// mtr 0.95's report (`mtr -r -n`, ui/report.c report_close), from a TraceReport: the
/// start line, the header of the default fields (Loss%, Snt, Last, Avg, Best, Wrst, StDev:
/// mtr.c data_fields), one row per hop up to the last one mtr lists (net_max), `???` for a
/// hop that never answered, and under a row each other address that answered that hop.
/// With `-e`, each MPLS label of the hop's latest answer on a line of its own as mtr -e
/// prints it, and its other extension objects as traceroute -e writes them.
struct TraceReportRenderer {
    var localHostName: String
    var showsExtensions = false
    /// Without -n, a hop's name as mtr prints it (the name alone, the address when there is
    /// none); nil: addresses only.
    var names: ((IPAddress) -> String?)?

    /// mtr's name column (report.c len_hosts): the fields start at this column, over
    /// whatever a longer name wrote there.
    static let nameColumns = 33

    /// The whole report, each line without its newline. `start`: when the run began;
    /// mtr prints its local time, reach UTC.
    func lines(_ report: TraceReport, start: RealtimeInstant) -> [String] {
        let stamp = UTCTimestamp.iso8601(start)
        var lines = ["Start: " + stamp.prefix(19) + "+0000", header]
        for hop in report.listedHops { lines += rows(hop) }
        return lines
    }

    var header: String {
        let titles = ["Loss%", "Snt", " ", "Last", "Avg", "Best", "Wrst", "StDev"]
        return Self.fields(after: "HOST: " + localHostName, zip(titles, Self.widths).map { Self.padded($0, $1) })
    }

    /// The default fields of mtr.c's data_fields in order (LS NABWV): their widths.
    static let widths = [6, 6, 1, 6, 6, 6, 6, 6]

    /// mtr's line: `start` in the name column, then each field written where the one
    /// before it ends by its width (report.c: snprintf at buf + len, len += width), so a
    /// field longer than its width, "100.0%" say, loses its last bytes to the next.
    static func fields(after start: String, _ values: [String]) -> String {
        var line = Array(column(start))
        var position = nameColumns
        for (value, width) in zip(values, widths) {
            line = Array(line.prefix(position)) + Array(value)
            position += width
        }
        return String(line)
    }

    /// A hop's row (" %2d.|-- %-33s", then " %4.1f%%", " %5d", " ", five " %5.1f" in
    /// their widths), its other responders, its extensions.
    func rows(_ hop: TraceHopStatistics) -> [String] {
        let name = hop.latest.map(label) ?? "???"
        let number = Self.padded(String(hop.hop), 2)
        let loss = " " + Self.padded(Self.oneDecimal(thousandths: hop.lossThousandths), 4) + "%"
        let times = [
            hop.lastMicroseconds, hop.averageMicroseconds, hop.bestMicroseconds, hop.worstMicroseconds,
            hop.standardDeviationMicroseconds,
        ].map { " " + Self.padded(Self.oneDecimal(thousandths: $0), 5) }
        let row = Self.fields(after: " \(number).|-- " + name, [loss, " " + Self.padded(String(hop.sent), 5), " "] + times)
        var lines = [row]
        for other in hop.responders where other != hop.latest {
            lines.append("        " + Self.trailingPadded(label(other), Self.nameColumns))
        }
        if showsExtensions { lines += extensionLines(hop.extensions) }
        return lines
    }

    /// mtr -e's MPLS lines (report.c: "    |   +-- [MPLS: Lbl %lu TC %u S %u TTL %u]"), and in
    /// the same place interface information in later traceroutes' words, any other object in
    /// traceroute -e's.
    func extensionLines(_ objects: [ICMPExtensionObject]) -> [String] {
        objects.flatMap { object -> [String] in
            switch object {
            case .mplsLabelStack(let entries):
                return entries.map { entry in
                    "    |   +-- [MPLS: Lbl \(entry.label) TC \(entry.trafficClass) S \(entry.bottomOfStack ? 1 : 0) TTL \(entry.ttl)]"
                }
            case .interfaceInformation(let information): return ["    |   +-- [\(information.text)]"]
            case .other: return ["    |   +-- [\(object.tracerouteText)]"]
            }
        }
    }

    private func label(_ address: IPAddress) -> String {
        names?(address).map { PrintableText.escaped($0) } ?? address.description
    }

    /// `text` in mtr's name column: padded to it, cut at it.
    static func column(_ text: String) -> String {
        String(trailingPadded(text, nameColumns).prefix(nameColumns))
    }

    static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    static func trailingPadded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// printf("%.1f", n / 1000.0) for n ≥ 0, exactly: mtr divides its integer microseconds
    /// (and thousandths of a percent) by 1000.0 and prints the double. Only a remainder of
    /// exactly 50 hundredths is in doubt; then the double's own error (its sign found with
    /// one rounding, by a fused multiply-add) says which way printf rounds, and an exact
    /// tie goes to the even digit as glibc rounds it.
    static func oneDecimal(thousandths: Int64) -> String {
        let value = max(0, thousandths)
        var tenths = value / 100
        let rest = value % 100
        if rest > 50 {
            tenths += 1
        } else if rest == 50 {
            let quotient = Double(value) / 1000
            let error = (-Double(value)).addingProduct(quotient, 1000)
            if error > 0 || (error == 0 && tenths % 2 == 1) { tenths += 1 }
        }
        return "\(tenths / 10).\(tenths % 10)"
    }
}

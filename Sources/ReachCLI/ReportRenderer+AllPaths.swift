import ReachCore
import ReachSystem

/// `status --all`: every path out of a family, under that family's line, in the kernel's order.
extension ReportRenderer {
    /// "  2. up1 (ethernet, up), gateway 198.18.2.1, metric 200, table main: reachable", a line
    /// a path; "  no default route" for a family without one.
    func write(allPaths choices: [PathChoice], family: AddressFamily, to text: inout [UInt8]) {
        let ofFamily = choices.filter { $0.family == family }
        if ofFamily.isEmpty { text.append(literal: "  no default route\n") }
        for (rank, choice) in ofFamily.enumerated() {
            text.append(utf8: "  \(rank + 1). ")
            write(choice, to: &text)
            text.append(UInt8(ascii: "\n"))
        }
    }

    func write(_ choice: PathChoice, to text: inout [UInt8]) {
        let report = choice.report
        if let link = report.link {
            text.append(utf8: "\(link.name) (\(link.kind.rawValue), \(link.operState))")
        } else {
            text.append(utf8: "\(choice.routeType) route")
        }
        if let gateway = report.gateway { text.append(utf8: ", gateway \(gateway)") }
        if let prefix = choice.prefix { text.append(utf8: ", route \(prefix)") }
        text.append(utf8: ", metric \(choice.metric), table \(choice.tableName)")
        // The main table's own rule goes without saying; any other is how the path is reached.
        if choice.ruleSelector != "all" || choice.table != 254 {
            text.append(utf8: ", rule \(choice.rulePriority) \(choice.ruleSelector)")
        }
        if let reason = report.reason {
            text.append(utf8: ": not reachable (\(reason.phrase))")
        } else {
            text.append(literal: ": reachable")
        }
        if report.expensive { text.append(literal: ", expensive") }
        switch choice.skip {
        case .linkDownIgnored?: text.append(literal: ", passed over (ignore_routes_with_linkdown)")
        case .deadNextHop?: text.append(literal: ", passed over (dead next hop)")
        case nil: break
        }
        if choice.inUse { text.append(literal: ", in use") }
        if showsFlags { text.append(utf8: ", flags \(report.flags.flagString)") }
    }

    /// `"all_paths": [...]`: each path as an object, in the same order as the text.
    func write(allPaths choices: [PathChoice], to writer: inout JSONWriter) {
        writer.key("all_paths")
        writer.beginArray()
        for choice in choices {
            let report = choice.report
            writer.beginObject()
            writer.key("family")
            writer.string(choice.family.rawValue)
            writer.key("in_use")
            writer.bool(choice.inUse)
            writer.key("skipped")
            writer.string(choice.skip?.rawValue)
            writer.key("reachable")
            writer.bool(report.isReachable)
            writer.key("reason")
            writer.string(report.reason?.rawValue)
            writer.key("link")
            write(link: report.link, to: &writer)
            writer.key("gateway")
            writer.string(report.gateway)
            writer.key("source")
            writer.string(report.source)
            writer.key("prefix")
            writer.string(choice.prefix)
            writer.key("metric")
            writer.int(Int64(choice.metric))
            writer.key("table")
            writer.int(Int64(choice.table))
            writer.key("rule_priority")
            writer.int(Int64(choice.rulePriority))
            writer.key("rule_selector")
            writer.string(choice.ruleSelector)
            writer.key("route_type")
            writer.string(choice.routeType.description)
            writer.key("expensive")
            writer.bool(report.expensive)
            writer.key("flag_string")
            writer.string(report.flags.flagString)
            writer.endObject()
        }
        writer.endArray()
    }
}

import ReachCore

/// The JSON schema version; bump it when a field changes meaning or goes away.
let jsonSchemaVersion: Int64 = 1

/// Text for people and JSON for scripts, from one reachability report.
struct ReportRenderer {
    var showsFlags: Bool

    func text(_ report: ReachabilityReport) -> String {
        if let failure = report.resolutionFailure, case .host(let name) = report.subject {
            return "\(name): not reachable (name not resolved: \(failure))\n"
        }
        // A loop, not map + joined(): the unspecialized joined() looks up associated-type
        // witnesses at run time (170 K instructions at start-up).
        var text = ""
        for path in report.paths {
            text += label(for: path, in: report.subject) + ": " + describe(path) + "\n"
        }
        return text
    }

    private func label(for path: PathReport, in subject: ReachabilityReport.Subject) -> String {
        switch subject {
        case .internet: path.family.label
        case .host(let name): "\(name) (\(path.destination))"
        case .address(let address): address.description
        }
    }

    /// "reachable via ethernet eth0, gateway 198.18.0.1, source 198.18.0.2",
    /// "not reachable (no carrier on eth0)".
    func describe(_ path: PathReport) -> String {
        var text: String
        if let reason = path.reason {
            text = "not reachable (" + reason.phrase
            if let link = path.link { text += " on \(link.name)" }
            text += ")"
        } else {
            text = "reachable"
            if let link = path.link { text += " via \(link.kind.rawValue) \(link.name)" }
            if let gateway = path.gateway { text += ", gateway \(gateway)" }
            if let source = path.source { text += ", source \(source)" }
        }
        if showsFlags { text += ", flags \(path.flags.flagString)" }
        return text
    }

    func json(_ report: ReachabilityReport, command: String) -> JSONValue {
        let target: JSONValue = switch report.subject {
        case .internet: .null
        case .host(let name): .string(name)
        case .address(let address): .string(address.description)
        }
        return .object([
            ("schema", .int(jsonSchemaVersion)),
            ("command", .string(command)),
            ("target", target),
            ("reachable", .bool(report.isReachable)),
            ("reason", .optional(report.reason?.rawValue)),
            ("resolver_error", .optional(report.resolutionFailure)),
            ("paths", .array(report.paths.map(json))),
        ])
    }

    func json(_ path: PathReport) -> JSONValue {
        let link: JSONValue = path.link.map { link in
            .object([
                ("name", .string(link.name)),
                ("index", .int(Int64(link.index))),
                ("kind", .string(link.kind.rawValue)),
                ("operstate", .string(link.operState.description)),
            ])
        } ?? .null
        return .object([
            ("address", .string(path.destination.description)),
            ("family", .string(path.family.rawValue)),
            ("reachable", .bool(path.isReachable)),
            ("flags", .array(path.flags.names.map(JSONValue.string))),
            ("flag_string", .string(path.flags.flagString)),
            ("reason", .optional(path.reason?.rawValue)),
            ("link", link),
            ("gateway", .optional(path.gateway?.description)),
            ("source", .optional(path.source?.description)),
        ])
    }
}

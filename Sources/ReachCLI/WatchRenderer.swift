import ReachCore
import ReachSystem

/// The lines and JSON objects of `watch`, built on the status renderer: one line per
/// path (family, or address of a host) whose compared state changed, with what it was;
/// with `--probe`, a `connectivity:` line when the connectivity state changed; with `--all`, a
/// line per path out whose place, verdict or use changed.
struct WatchRenderer {
    var report: ReportRenderer

    /// What a slot compares: a path's compared fields, the connectivity state, or a path out.
    private enum Compared: Equatable {
        case path(WatchedState.Path)
        case connectivity(ConnectivityState)
        case alternative(WatchedState.Alternative)
    }

    /// One labelled part of a state: a path, the connectivity, or a host name that did not resolve.
    private struct Slot {
        var id: String
        var label: String
        var text: String
        var compared: Compared?

        var isConnectivity: Bool {
            if case .connectivity = compared { return true }
            return false
        }

        /// What a slot that is not there was: a host's address, or (`--all`) a path out.
        var absence: String {
            if case .alternative = compared { return "not a path out" }
            return "not among the addresses"
        }

        /// What a slot that went away is no longer.
        var gone: String {
            if case .alternative = compared { return "no longer a path out" }
            return "no longer among the addresses"
        }
    }

    func text(_ event: WatchEvent) -> String {
        let time = UTCTimestamp.iso8601(event.time)
        let current = slots(event.current)
        guard let previousReport = event.previous else {
            return current.map { "\(time)  \($0.label): \($0.text)\n" }.joined()
        }
        let previousAll = slots(previousReport)
        let previous = previousAll.filter { !$0.isConnectivity }
        var lines = ""
        // A name that stopped or started resolving: the whole state changed shape.
        if current.contains(where: { $0.compared == nil }) || previous.contains(where: { $0.compared == nil }) {
            let was = previous.count == 1 ? previous[0].text : previous.map { "\($0.id) \($0.text)" }.joined(separator: "; ")
            for slot in current where !slot.isConnectivity { lines += "\(time)  \(slot.label): \(slot.text)   was: \(was)\n" }
        } else {
            for slot in current where !slot.isConnectivity {
                let before = previous.first { $0.id == slot.id }
                guard before?.compared != slot.compared else { continue }
                lines += "\(time)  \(slot.label): \(slot.text)   was: \(before?.text ?? slot.absence)\n"
            }
            for slot in previous where !current.contains(where: { $0.id == slot.id }) {
                lines += "\(time)  \(slot.label): \(slot.gone)   was: \(slot.text)\n"
            }
        }
        // The connectivity line comes after the paths it depends on.
        if let now = current.first(where: \.isConnectivity), let before = previousAll.first(where: \.isConnectivity),
            now.compared != before.compared
        {
            lines += "\(time)  \(now.label): \(now.text)   was: \(before.text)\n"
        }
        return lines
    }

    func json(_ event: WatchEvent) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("schema", .int(jsonSchemaVersion)),
            ("event", .string(event.kind.rawValue)),
            ("time", .string(UTCTimestamp.iso8601(event.time))),
            ("current", report.json(event.current, command: "watch")),
            ("previous", event.previous.map { report.json($0, command: "watch") } ?? .null),
        ]
        if let allPaths = event.current.allPaths {
            members.append(("path_changes", .array(Self.pathChanges(from: event.previous?.allPaths ?? [], to: allPaths))))
        }
        return .object(members)
    }

    /// `--all`: each path out that changed, by its family, link, gateway and table, with the
    /// names of what changed ("added" and "removed" for a path that came or went).
    static func pathChanges(from previous: [PathChoice], to current: [PathChoice]) -> [JSONValue] {
        let before = WatchedState.Alternative.ranked(previous)
        let now = WatchedState.Alternative.ranked(current)
        var changes: [JSONValue] = []
        func change(_ path: WatchedState.Alternative, _ changed: [String]) -> JSONValue {
            .object([
                ("family", .string(path.family.rawValue)), ("link", .optional(path.linkName)),
                ("gateway", .optional(path.gateway?.description)), ("table", .int(Int64(path.table))),
                ("changed", .array(changed.map(JSONValue.string))),
            ])
        }
        for path in now {
            guard let was = before.first(where: { $0.identity == path.identity }) else {
                changes.append(change(path, ["added"]))
                continue
            }
            let changed = [
                ("rank", was.rank != path.rank), ("reachable", was.isReachable != path.isReachable),
                ("in_use", was.inUse != path.inUse), ("skipped", was.skip != path.skip),
            ].filter(\.1).map(\.0)
            if !changed.isEmpty { changes.append(change(path, changed)) }
        }
        for path in before where !now.contains(where: { $0.identity == path.identity }) { changes.append(change(path, ["removed"])) }
        return changes
    }

    /// A state on one line, its paths (and connectivity) separated by "; ": `watch
    /// --notify`'s STATUS=.
    func statusLine(_ state: ReachabilityReport) -> String {
        slots(state).map { "\($0.label): \($0.text)" }.joined(separator: "; ")
    }

    private func slots(_ state: ReachabilityReport) -> [Slot] {
        if let failure = state.resolutionFailure, case .host(let name) = state.subject {
            return [Slot(id: name, label: name, text: "not reachable (name not resolved: \(failure))", compared: nil)]
        }
        var slots = state.paths.map { path in
            Slot(id: path.destination.description, label: report.label(for: path, in: state.subject),
                 text: report.describe(path), compared: .path(WatchedState.Path(path)))
        }
        if let allPaths = state.allPaths {
            for (choice, path) in zip(allPaths, WatchedState.Alternative.ranked(allPaths)) {
                var words: [UInt8] = []
                report.write(choice, to: &words)
                slots.append(Slot(id: "path " + path.identity, label: "\(path.family.label) path",
                                  text: "\(path.rank). " + String(decoding: words, as: UTF8.self), compared: .alternative(path)))
            }
        }
        if let connectivity = state.connectivity {
            slots.append(Slot(id: "connectivity", label: "connectivity", text: report.summary(connectivity),
                              compared: .connectivity(connectivity.state)))
        }
        return slots
    }
}

import ReachCore
import ReachSystem

/// `host --connect`'s lines and JSON member: the address tried first, the winner, and each
/// attempt (so each family) with its time.
struct ConnectRaceRenderer {
    var port: UInt16

    /// "tried first: ...", "connect to port 80: ... won in 251.3 ms", then a line an attempt.
    func text(_ race: HappyEyeballsRace) -> String {
        var text = ""
        if let first = race.order.first { text += "tried first: \(first) (getaddrinfo's order, RFC 6724)\n" }
        if let winner = race.winner, let ended = race.attempts[winner].ended {
            let address = race.attempts[winner].address
            text += "connect to port \(port): \(address) won in \(Self.milliseconds(ended)) ms (Happy Eyeballs, RFC 8305)\n"
        } else {
            text += "connect to port \(port): no address connected\n"
        }
        for (index, attempt) in race.attempts.enumerated() {
            text += "  \(attempt.address.family.label) \(attempt.address): \(describe(attempt, first: index == 0))\n"
        }
        return text
    }

    /// "connected in 1.2 ms, started at 250.0 ms", "refused in 0.3 ms", "cancelled after 251.3 ms";
    /// the first attempt starts the race.
    func describe(_ attempt: HappyEyeballsRace.Attempt, first: Bool) -> String {
        let took = (attempt.ended.map { $0 - attempt.started }).map(Self.milliseconds) ?? "?"
        let started = first ? "" : ", started at \(Self.milliseconds(attempt.started)) ms"
        let words: String = switch attempt.result {
        case .connected?: "connected in \(took) ms"
        case .refused?: "refused in \(took) ms"
        case .unreachable(let detail)?: "unreachable (\(detail)) in \(took) ms"
        case .routeRefused(let detail)?: "route refused (\(detail))"
        case .timedOut?: "no answer, timed out after \(took) ms"
        case .cancelled?: "no answer, cancelled after \(took) ms"
        case nil: "unfinished"
        }
        return words + started
    }

    /// `"connect": {...}`: the port, the address tried first, the winner, each family's
    /// outcome and every attempt.
    func json(_ race: HappyEyeballsRace) -> JSONValue {
        let winner = race.winner.map { race.attempts[$0] }
        let families = AddressFamily.allCases.compactMap { family in race.outcome(of: family).map { (family, $0) } }
        return .object([
            ("port", .int(Int64(port))),
            ("first_address", .optional(race.order.first?.description)),
            ("winner", .optional(winner?.address.description)),
            ("time_ms", winner?.ended.map(JSONValue.milliseconds) ?? .null),
            ("families", .array(families.map { family, attempt in
                .object([("family", .string(family.rawValue))] + members(attempt))
            })),
            ("attempts", .array(race.attempts.map { .object(members($0)) })),
        ])
    }

    private func members(_ attempt: HappyEyeballsRace.Attempt) -> [(String, JSONValue)] {
        let (result, detail): (String, String?) = switch attempt.result {
        case .connected?: ("connected", nil)
        case .refused?: ("refused", nil)
        case .unreachable(let words)?: ("unreachable", words)
        case .routeRefused(let words)?: ("route_refused", words)
        case .timedOut?: ("timed_out", nil)
        case .cancelled?: ("cancelled", nil)
        case nil: ("unfinished", nil)
        }
        return [
            ("address", .string(attempt.address.description)),
            ("result", .string(result)),
            ("detail", .optional(detail)),
            ("started_ms", .milliseconds(attempt.started)),
            ("time_ms", attempt.ended.map { .milliseconds($0 - attempt.started) } ?? .null),
        ]
    }

    static func milliseconds(_ span: TimeSpan) -> String {
        ReportRenderer.milliseconds(Double(span.nanoseconds) / 1e6)
    }
}

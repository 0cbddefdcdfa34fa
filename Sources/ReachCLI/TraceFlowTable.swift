import ReachCore
import ReachSystem

/// `reach trace --flows N`: each hop's responders over N flows, and where the paths split.
/// A flow keeps its ports (or ICMP identifier) for all its probes, so a router hashing them
/// sends it one way; flows differ in their source port, so they spread over equal-cost paths.
struct TraceFlowTable {
    /// Each flow's pass, in flow order.
    var results: [TraceResult]

    /// One hop's responders, each with the flows (from 1) that met it; "*" for flows that
    /// got no answer at that hop.
    func responders(at hop: Int) -> [(label: String, flows: [Int])] {
        var rows: [(label: String, flows: [Int])] = []
        for (flow, result) in results.enumerated() {
            let answers = result.outcomes.filter { $0.hop == hop }.compactMap { $0.answer?.responder }
            let labels = answers.isEmpty ? ["*"] : answers.reduce(into: [String]()) { if !$0.contains("\($1)") { $0.append("\($1)") } }
            for label in labels {
                if let row = rows.firstIndex(where: { $0.label == label }) {
                    rows[row].flows.append(flow + 1)
                } else {
                    rows.append((label, [flow + 1]))
                }
            }
        }
        return rows
    }

    /// The hops any flow probed, in order.
    var hops: [Int] {
        Array(Set(results.flatMap { $0.outcomes.map(\.hop) })).sorted()
    }

    /// " 2  198.18.1.2 [flows 1,3]  198.18.4.2 [flows 2]": one line per hop, the flows named
    /// only where they part.
    func lines() -> [String] {
        hops.map { hop in
            let rows = responders(at: hop)
            let prefix = (hop < 10 ? " " : "") + "\(hop) "
            if rows.count == 1 { return prefix + " " + rows[0].label }
            return prefix + rows.map { " \($0.label) [flows \($0.flows.map(String.init).joined(separator: ","))]" }.joined(separator: " ")
        }
    }

    /// The first hop where the flows' answering routers differ, and how many there were.
    var split: (hop: Int, paths: Int)? {
        for hop in hops {
            let answered = responders(at: hop).filter { $0.label != "*" }
            if answered.count > 1 { return (hop, answered.count) }
        }
        return nil
    }

    /// The closing line for the flows.
    var closing: String {
        guard let split else { return "trace: \(results.count) flows took one path\n" }
        return "trace: \(results.count) flows split at hop \(split.hop) over \(split.paths) routers\n"
    }
}

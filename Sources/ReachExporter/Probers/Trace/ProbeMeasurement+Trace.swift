import ReachCore
import ReachSystem

extension ProbeMeasurement {
    /// What one pass of the trace prober found: per hop from the first probed, the first
    /// address that answered it (nil: none), up to the hop where the pass ended.
    public struct Trace: Sendable, Equatable {
        public var firstHop = 1
        public var responders: [IPAddress?] = []

        public init(firstHop: Int = 1, responders: [IPAddress?] = []) {
            self.firstHop = firstHop
            self.responders = responders
        }

        init(_ result: TraceResult) {
            let hops = result.outcomes.map(\.hop)
            guard let first = hops.min(), let last = hops.max() else { return }
            firstHop = first
            responders = (first...last).map { hop in
                result.outcomes.first { $0.hop == hop && $0.answer != nil }?.answer?.responder
            }
        }

        /// The hop count: the last hop probed that answered (the destination's when it did).
        public var hops: Int {
            guard let index = responders.lastIndex(where: { $0 != nil }) else { return 0 }
            return firstHop + index
        }

        /// FNV-1a (32 bits, as probe_ip_addr_hash) over each hop's address bytes, a silent
        /// hop as one 0 byte, hops separated by a 0xff byte: it moves when a router on the
        /// way changes, appears or goes silent.
        public var pathHash: Double {
            var hash: UInt32 = 2_166_136_261
            func mix(_ byte: UInt8) {
                hash ^= UInt32(byte)
                hash = hash &* 16_777_619
            }
            for responder in responders {
                for byte in responder?.bytes ?? [0] { mix(byte) }
                mix(0xff)
            }
            return Double(hash)
        }
    }

    /// reach's trace metrics: the hop count, the path's hash (an alert on `changes()`), one
    /// info series per hop with its address, then what chooseProtocol registers.
    func traceSamples(_ trace: Trace) -> [MetricSample] {
        var samples = [
            MetricSample("reach_trace_hops", help: "Hops to the last router or destination that answered", value: Double(trace.hops)),
            MetricSample(
                "reach_trace_path_hash", help: "FNV-1a hash of the addresses that answered each hop; changes when the path does",
                value: trace.pathHash),
        ]
        for (index, responder) in trace.responders.enumerated() {
            samples.append(MetricSample(
                "reach_trace_hop_info", help: "The address that answered each hop (empty: none did)",
                labels: [.init("hop", String(trace.firstHop + index)), .init("address", responder?.description ?? "")], value: 1))
        }
        return samples + addressSamples
    }
}

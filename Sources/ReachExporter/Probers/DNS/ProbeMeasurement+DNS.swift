import ReachCore
import ReachExporterProbes
import ReachSystem

extension ProbeMeasurement {
    /// What the dns prober measured (`prober/dns.go`).
    public struct DNS: Sendable, Equatable {
        /// The resolve phase: the target's lookup, once it resolved.
        public var resolve = TimeSpan.zero
        public var phases = DNSExchange.Phases()
        /// Whether a response came and could be read (probe_dns_query_succeeded).
        public var querySucceeded = false
        public var answerCount = 0
        public var authorityCount = 0
        public var additionalCount = 0
        /// For an SOA query that got a response: the last SOA record's serial in the answer, 0
        /// without one (blackbox_exporter registers probe_dns_serial only then).
        public var serial: UInt32?
        public init() {}

        mutating func record(_ response: DNSMessage, queryType: UInt16) {
            querySucceeded = true
            answerCount = response.answers.count
            authorityCount = response.authorities.count
            additionalCount = response.additionals.count
            guard queryType == 6 else { return }
            serial = response.answers.reduce(0) { last, record in
                if case .soa(let soa) = record.data { return soa.serial }
                return last
            }
        }
    }

    /// blackbox_exporter's dns prober's metrics, then the address's.
    func dnsSamples(_ dns: DNS) -> [MetricSample] {
        var samples = [
            MetricSample(
                "probe_dns_additional_rrs", help: "Returns number of entries in the additional resource record list",
                value: Double(dns.additionalCount)),
            MetricSample(
                "probe_dns_answer_rrs", help: "Returns number of entries in the answer resource record list",
                value: Double(dns.answerCount)),
            MetricSample(
                "probe_dns_authority_rrs", help: "Returns number of entries in the authority resource record list",
                value: Double(dns.authorityCount)),
        ]
        for (phase, span) in [("resolve", dns.resolve), ("connect", dns.phases.connect), ("request", dns.phases.request)] {
            samples.append(MetricSample(
                "probe_dns_duration_seconds", help: "Duration of DNS request by phase", labels: [.init("phase", phase)],
                value: span.secondsValue))
        }
        samples.append(MetricSample(
            "probe_dns_query_succeeded", help: "Displays whether or not the query was executed successfully",
            value: dns.querySucceeded ? 1 : 0))
        if let serial = dns.serial {
            samples.append(MetricSample("probe_dns_serial", help: "Returns the serial number of the zone", value: Double(serial)))
        }
        return samples + addressSamples
    }
}

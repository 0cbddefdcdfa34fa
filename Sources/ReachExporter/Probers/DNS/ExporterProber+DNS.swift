import ReachCore
import ReachExporterProbes
import ReachSystem

extension ExporterProber {
    /// blackbox_exporter's dns prober (`prober/dns.go`): one query, the module's name, type
    /// and class, a random ID, recursion desired or not, over UDP, TCP or TLS over TCP (RFC
    /// 7858, dns_over_tls) from the module's source address; then the rcode against
    /// valid_rcodes and each section's records, as text, against its four lists of regular
    /// expressions.
    func dns(
        _ address: IPAddress, request: ExporterRouter.ProbeRequest, deadline: MonotonicInstant, into measurement: inout ProbeMeasurement
    ) throws {
        guard case .dns(var dns) = measurement.detail else { return }
        defer { measurement.detail = .dns(dns) }
        let settings = request.module.dns
        dns.resolve = measurement.lookup
        let question = try settings.question
        let query = DNSMessage.query(id: .random(in: 0...UInt16.max), question, recursionDesired: settings.recursionDesired)
        let source = settings.address.binding
        let port = request.target.port ?? (settings.dnsOverTLS ? 853 : 53)
        let exchanged: Result<DNSMessage, DNSExchange.Failure>
        if settings.dnsOverTLS {
            // The server is named by tls_config's server_name, else the target's host (dns.go).
            let outcome = try DNSOverTLS.run(
                query, to: address, port: port, host: request.target.host, settings: settings.tlsConfig, from: source,
                deadline: deadline, phases: &dns.phases)
            switch outcome {
            case .exchanged(let result): exchanged = result
            case .tlsFailed(let why): return measurement.fail(.tls(why))
            }
        } else {
            exchanged = try DNSExchange.run(
                query, to: address, port: port, over: settings.transport, from: source, deadline: deadline, phases: &dns.phases)
        }
        let response: DNSMessage
        switch exchanged {
        case .failure(let why):
            measurement.routeRefusal = why.routeRefusal
            measurement.fail(.exchange(why))
            return
        case .success(let answer): response = answer
        }
        dns.record(response, queryType: question.type)
        guard settings.validResponseCodes.contains(response.rcode) else { return measurement.fail(.dnsRcode) }
        let sections: [(DNSProberSettings.RRValidator, [DNSRecord], ProbeFailureReason)] = [
            (settings.validateAnswer, response.answers, .dnsAnswerRecords),
            (settings.validateAuthority, response.authorities, .dnsAuthorityRecords),
            (settings.validateAdditional, response.additionals, .dnsAdditionalRecords),
        ]
        for (validator, records, reason) in sections where validator.failure(of: records.map(\.text)) != nil {
            return measurement.fail(reason)
        }
        measurement.success = true
    }
}

/// The dns prober's own failure reasons.
extension ProbeFailureReason {
    /// The response's rcode (EDNS's extended bits included) is not among valid_rcodes.
    public static let dnsRcode = Self(rawValue: "dns_rcode")
    /// A record of the answer section failed validate_answer_rrs.
    public static let dnsAnswerRecords = Self(rawValue: "dns_answer_rrs")
    /// A record of the authority section failed validate_authority_rrs.
    public static let dnsAuthorityRecords = Self(rawValue: "dns_authority_rrs")
    /// A record of the additional section failed validate_additional_rrs.
    public static let dnsAdditionalRecords = Self(rawValue: "dns_additional_rrs")

    /// A query that got no usable response, by what happened.
    static func exchange(_ failure: DNSExchange.Failure) -> Self {
        switch failure.kind {
        case .timedOut: return .timedOut
        case .refused: return .connectionRefused
        case .closed: return .connectionClosed
        case .unreachable: return failure.routeRefusal.map(route) ?? .hostUnreachable
        case .sourceRefused: return .sourceAddressUnavailable
        case .interfaceRefused: return .sourceInterfaceUnavailable
        case .malformed: return .malformedResponse
        }
    }
}

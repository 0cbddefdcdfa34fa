import ReachCore
import ReachExporterProbes
import ReachSystem

extension ExporterProber {
    /// blackbox_exporter's tcp prober (`prober/tcp.go`): a connection from the module's
    /// source address, over TLS with `tls`, then its query_response steps (STARTTLS among
    /// them); success when every step is done. The TLS server is named by tls_config's
    /// server_name, else the target's host, as dialTCP and the STARTTLS step do.
    func tcp(
        _ address: IPAddress, target: ProbeTarget, settings: TCPProberSettings, deadline: MonotonicInstant,
        into measurement: inout ProbeMeasurement
    ) throws {
        let conversation = TCPConversation(steps: settings.queryResponse.map(\.step), tls: settings.tls, tlsSettings: settings.tlsConfig)
        let source = settings.address.binding
        let (outcome, peer) = try conversation.run(
            to: address, port: target.port ?? 0, host: target.host, from: source, deadline: deadline)
        measurement.detail = .tcp(.init(tls: peer))
        switch outcome {
        case .completed:
            measurement.success = true
        case .notConnected(let why):
            measurement.routeRefusal = why.routeRefusal
            measurement.fail(.connect(why))
        case .noMatch:
            measurement.detail = .tcp(.init(failedDueToRegex: true, tls: peer))
            measurement.fail(.queryResponseNotMatched)
        case .tlsFailed(_, let why):
            measurement.fail(.tls(why))
        case .broken(_, .timedOut):
            measurement.fail(.timedOut)
        case .broken(_, .reset):
            measurement.fail(.connectionClosed)
        case .broken(_, .lineTooLong):
            measurement.fail(.lineTooLong)
        }
    }
}

extension TCPProberSettings.QueryResponse {
    /// The step as the conversation runs it: expect in the dialect RE2's pattern was written
    /// again in, its groups Go's for send's `${1}`.
    var step: TCPConversation.Step {
        TCPConversation.Step(expect: expect.map { ExpectPattern($0.regex) }, send: send, startTLS: startTLS)
    }
}

/// The tcp prober's own.
extension ProbeFailureReason {
    /// The peer closed the connection before a line matched a query_response step's expect.
    public static let queryResponseNotMatched = Self(rawValue: "query_response_not_matched")
    /// The peer sent a line longer than 64 KiB while a step read.
    public static let lineTooLong = Self(rawValue: "line_too_long")
}

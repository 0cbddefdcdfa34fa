import ReachCore
import ReachSystem

/// One DNS query over TLS (RFC 7858), as blackbox_exporter's dns prober makes it with
/// `dns_over_tls` (miekg/dns's "tcp-tls" client): ReachCore's TCP connect, a TLS handshake
/// over it, then the query framed as over TCP. The connect phase holds the handshake, as
/// miekg/dns's rtt counts only the exchange after its dial.
public enum DNSOverTLS {
    public enum Outcome: Equatable, Sendable {
        case exchanged(Result<DNSMessage, DNSExchange.Failure>)
        case tlsFailed(TLSStream.Failure)
    }

    /// The response to `query` from `address` port `port`; `host` names the server for TLS
    /// unless the settings do. A failing system call that says nothing about the network is
    /// thrown.
    public static func run(
        _ query: [UInt8], to address: IPAddress, port: UInt16, host: String, settings: TLSSettings, from source: SocketBinding,
        deadline: MonotonicInstant, phases: inout DNSExchange.Phases
    ) throws -> Outcome {
        let start = MonotonicInstant.now()
        var requestStart = start
        defer {
            phases.connect = requestStart - start
            phases.request = MonotonicInstant.now() - requestStart
        }
        let connection: TCPConnection
        switch try DNSExchange.connect(to: address, port: port, from: source, deadline: deadline) {
        case .success(let open): connection = open
        case .failure(let failure):
            requestStart = .now()
            return .exchanged(.failure(failure))
        }
        let handshake = try TLSStream.handshake(
            over: connection, address: address, port: port, host: host, settings: settings, deadline: deadline)
        requestStart = .now()
        switch handshake {
        case .success(let session):
            return .exchanged(try DNSExchange.exchange(query, over: session, peer: "\(address) port \(port)", deadline: deadline))
        case .failure(let why): return .tlsFailed(why)
        }
    }
}

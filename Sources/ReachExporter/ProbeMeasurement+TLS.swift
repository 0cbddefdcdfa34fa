import ReachCore
import ReachExporterProbes

extension ProbeMeasurement {
    /// blackbox_exporter's TLS metrics of a response that came over TLS (`prober/http.go`,
    /// `prober/tls.go`, help texts of `prober/prober.go`): the earliest notAfter of the
    /// certificates, the version, the verified chain's expiry (the zero time.Time's Unix
    /// seconds when nothing was verified, as Go reports it), and the leaf's labels.
    static func tlsSamples(_ peer: TLSStream.Peer) -> [MetricSample] {
        let leaf = CertificateSummary(der: peer.leaf)
        let earliest = peer.certificates.map(\.notAfter).min() ?? goZeroTime
        let chainExpiry = peer.verifiedChain.isEmpty ? goZeroTime : peer.verifiedChain.map(\.notAfter).min() ?? goZeroTime
        return [
            MetricSample("probe_ssl_earliest_cert_expiry", help: "Returns last SSL chain expiry in unixtime", value: Double(earliest)),
            MetricSample(
                "probe_tls_version_info", help: "Returns the TLS version used or NaN when unknown",
                labels: [.init("version", peer.version)],
                value: 1),
            MetricSample(
                "probe_ssl_last_chain_expiry_timestamp_seconds", help: "Returns last SSL chain expiry in timestamp",
                value: Double(chainExpiry)),
            MetricSample(
                "probe_ssl_last_chain_info", help: "Contains SSL leaf certificate information",
                labels: [
                    // In the order Go's client library writes them: by name.
                    .init("fingerprint_sha256", leaf.fingerprint), .init("issuer", leaf.issuer), .init("subject", leaf.subject),
                    .init("subjectalternative", leaf.dnsNames.joined(separator: ",")),
                ],
                value: 1),
        ]
    }

    /// `time.Time{}.Unix()`: year 1, in Unix seconds.
    static let goZeroTime: Int64 = -62_135_596_800
}

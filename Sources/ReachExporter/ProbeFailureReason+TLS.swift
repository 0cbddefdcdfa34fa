import ReachExporterProbes

/// The reasons of a TLS handshake, for every prober that speaks TLS.
extension ProbeFailureReason {
    /// The TLS handshake failed for another reason than the certificate's (no common
    /// version or cipher, an alert, the connection closed or timed out in it).
    public static let tlsHandshake = Self(rawValue: "tls_handshake")
    /// The server's certificate, or one of its chain, is past its notAfter.
    public static let certificateExpired = Self(rawValue: "certificate_expired")
    /// No chain from the server's certificate to a trusted root (the system's, or ca_file).
    public static let certificateUntrusted = Self(rawValue: "certificate_untrusted")
    /// The certificate does not name the server (server_name, the Host header or the target's host).
    public static let certificateWrongName = Self(rawValue: "certificate_wrong_name")

    /// A failed TLS handshake, by its cause.
    static func tls(_ failure: TLSStream.Failure) -> Self {
        switch failure.kind {
        case .handshake: .tlsHandshake
        case .certificateExpired: .certificateExpired
        case .certificateUntrusted: .certificateUntrusted
        case .certificateWrongName: .certificateWrongName
        }
    }
}

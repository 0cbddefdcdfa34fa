import NIOSSL

/// The versions as swift-nio-ssl names them: apart from the names, so that what reads a
/// configuration needs no TLS library.
extension TLSProtocolVersion {
    /// swift-nio-ssl's name for the version, as its TLSConfiguration takes it.
    public var nio: TLSVersion {
        switch self {
        case .tls10: .tlsv1
        case .tls11: .tlsv11
        case .tls12: .tlsv12
        case .tls13: .tlsv13
        }
    }

    /// The version a handshake negotiated, as swift-nio-ssl reports it.
    init(_ nio: TLSVersion) {
        switch nio {
        case .tlsv1: self = .tls10
        case .tlsv11: self = .tls11
        case .tlsv12: self = .tls12
        case .tlsv13: self = .tls13
        }
    }
}

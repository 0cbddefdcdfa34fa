import NIOSSL
import ReachSystem

/// The settings made a BoringSSL context: apart from the value, so that what reads
/// blackbox.yml (and the fuzzer that feeds it) needs no TLS library.
extension TLSSettings {
    /// The BoringSSL context for these settings and the files' present contents: the files
    /// are read at each probe, as Go's client reads them for each of blackbox_exporter's,
    /// so a renewed certificate counts without a reload; the context is built once per
    /// distinct settings and contents, as loading the system's roots costs milliseconds.
    func context() throws(Problem) -> NIOSSLContext {
        let key = Key(
            settings: self, ca: try Self.read(caFile, "ca_file"), certificate: try Self.read(certFile, "cert_file"),
            privateKey: try Self.read(keyFile, "key_file"))
        if let cached = Self.contexts.withLock({ Self.cache[key] }) { return cached }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = minVersion?.nio ?? .tlsv12
        configuration.certificateVerification = insecureSkipVerify ? .none : .fullVerification
        configuration.applicationProtocols = applicationProtocols
        if let ca = key.ca {
            guard let roots = try? NIOSSLCertificate.fromPEMBytes(ca), !roots.isEmpty else {
                throw Problem(key: "ca_file", message: "\(caFile): no PEM certificate in it")
            }
            configuration.trustRoots = .certificates(roots)
        } else if let roots = EnvironmentTrustRoots.current {
            configuration.trustRoots = .certificates(roots)
        }
        if let certificate = key.certificate {
            guard let chain = try? NIOSSLCertificate.fromPEMBytes(certificate), !chain.isEmpty else {
                throw Problem(key: "cert_file", message: "\(certFile): no PEM certificate in it")
            }
            configuration.certificateChain = chain.map { .certificate($0) }
        }
        if let privateKey = key.privateKey {
            guard let parsed = try? NIOSSLPrivateKey(bytes: privateKey, format: .pem) else {
                throw Problem(key: "key_file", message: "\(keyFile): no PEM private key in it")
            }
            configuration.privateKey = .privateKey(parsed)
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw Problem(key: "tls_config", message: "\(error)")
        }
        Self.contexts.withLock {
            // Files rewritten again and again would otherwise grow it without end.
            if Self.cache.count >= 64 { Self.cache.removeAll() }
            Self.cache[key] = context
        }
        return context
    }

    private struct Key: Hashable {
        var settings: TLSSettings
        var ca: [UInt8]?
        var certificate: [UInt8]?
        var privateKey: [UInt8]?
    }

    /// A PEM file's bytes; nil when no file is named.
    private static func read(_ path: String, _ key: String) throws(Problem) -> [UInt8]? {
        guard !path.isEmpty else { return nil }
        switch FileContents.read(path, limit: 1 << 20) {
        case .success(let bytes): return bytes
        case .failure(let errno): throw Problem(key: key, message: "\(path): \(errno)")
        }
    }

    private static let contexts = Lock()
    // Guarded by `contexts`.
    nonisolated(unsafe) private static var cache: [Key: NIOSSLContext] = [:]
}

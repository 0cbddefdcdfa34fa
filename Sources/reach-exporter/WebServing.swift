import NIOCore
import NIOSSL
import ReachExporter
import ReachExporterProbes
import ReachSystem

/// `--web.config.file` as exporter-toolkit serves it (its web/tls_config.go Serve and
/// web/handler.go): the file is read again for each request (users, headers) and each TLS
/// handshake (certificate, key, client CAs), so that a renewed certificate is served
/// without a restart, and a file that cannot be used fails that request or handshake only.
final class WebSource: Sendable {
    let path: String?
    /// The file as read at start: whether TLS is served is decided once, as exporter-toolkit does.
    let initial: WebConfiguration

    init(path: String?, initial: WebConfiguration) {
        self.path = path
        self.initial = initial
    }

    /// The file as it is now.
    func current() throws(ExporterConfigurationFile.Failure) -> WebConfiguration {
        guard let path else { return initial }
        return try WebConfiguration.read(path)
    }

    /// A server handler for one new connection, from the file as it is now.
    func tlsHandler() throws(ExporterConfigurationFile.Failure) -> NIOSSLServerHandler {
        guard let tls = try current().tls else {
            throw ExporterConfigurationFile.Failure(file: path ?? "", "tls_server_config is gone")
        }
        return try TLSServing.handler(tls)
    }
}

/// exporter-toolkit's ConfigToTLSConfig in BoringSSL's terms (swift-nio-ssl).
enum TLSServing {
    /// The certificate and key must be readable and belong together; the CA file readable.
    static func handler(_ tls: WebConfiguration.TLSServer) throws(ExporterConfigurationFile.Failure) -> NIOSSLServerHandler {
        let chain = try pem(tls.certificateFile) { bytes in try NIOSSLCertificate.fromPEMBytes(bytes) }
        guard !chain.isEmpty else { throw failure(tls.certificateFile, "no certificate in it") }
        let key = try pem(tls.keyFile) { bytes in try NIOSSLPrivateKey(bytes: bytes, format: .pem) }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = tls.minimumVersion.nio
        configuration.maximumTLSVersion = tls.maximumVersion.nio
        if !tls.cipherSuites.isEmpty { configuration.cipherSuiteValues = tls.cipherSuites.map { NIOTLSCipher(rawValue: $0) } }
        // HTTP/1.1 only: Go offers h2 too, and a client without it falls back to this.
        configuration.applicationProtocols = ["http/1.1"]
        // Go's crypto/tls: asked for (CertificateRequest), required or not, then checked
        // against client_ca_file (the system's roots without one) or taken as it comes.
        configuration.certificateVerification =
            !tls.clientAuth.asks ? .none : tls.clientAuth.requires ? .noHostnameVerification : .optionalVerification
        if let file = tls.clientCAFile {
            let authorities = try pem(file) { bytes in try NIOSSLCertificate.fromPEMBytes(bytes) }
            configuration.trustRoots = .certificates(authorities)
            configuration.sendCANameList = true
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw failure(tls.certificateFile, "cannot serve it with \(tls.keyFile): \(error)")
        }
        guard tls.clientAuth.asks, !tls.clientAuth.verifies else { return NIOSSLServerHandler(context: context) }
        // RequestClientCert, RequireAnyClientCert: any certificate, unchecked.
        return NIOSSLServerHandler(context: context) { _, promise in promise.succeed(.certificateVerified) }
    }

    private static func pem<Value>(_ path: String, _ decode: ([UInt8]) throws -> Value) throws(ExporterConfigurationFile.Failure)
        -> Value
    {
        let bytes = try WebConfiguration.contents(path)
        do {
            return try decode(bytes)
        } catch {
            throw failure(path, "not PEM that can be used: \(error)")
        }
    }

    private static func failure(_ path: String, _ text: String) -> ExporterConfigurationFile.Failure {
        ExporterConfigurationFile.Failure(file: path, text)
    }
}

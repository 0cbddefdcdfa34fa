import NIOSSL
import ReachSystem

/// The roots a probe trusts when its tls_config names no ca_file and SSL_CERT_FILE or
/// SSL_CERT_DIR is set: those blackbox_exporter's Go client trusts then, read as Go's
/// crypto/x509 reads them on Linux (`crypto/x509/root_unix.go`, `root_linux.go`, Go 1.19):
/// SSL_CERT_FILE replaces the list of bundle files, of which the first readable one counts;
/// SSL_CERT_DIR, colon-separated, replaces the list of directories, every file of which is
/// read (hashed names or not, unlike OpenSSL's lookup); a file that is not PEM adds nothing.
/// Without either variable, BoringSSL's search of the same places (swift-nio-ssl's
/// `.default`) stands.
enum EnvironmentTrustRoots {
    /// Go's `certFiles` for Linux.
    static let bundleFiles = [
        "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/ca-bundle.pem", "/etc/pki/tls/cacert.pem",
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", "/etc/ssl/cert.pem",
    ]
    /// Go's `certDirectories` for Linux.
    static let directories = ["/etc/ssl/certs", "/etc/pki/tls/certs"]

    /// The roots of this process's environment, read once as Go reads them once; nil when
    /// neither variable is set.
    static let current: [NIOSSLCertificate]? = roots(environment: CurrentProcess.environment)

    /// The roots `environment` names; nil when it sets neither variable (or sets them empty,
    /// which Go takes for unset).
    static func roots(environment: (String) -> String?) -> [NIOSSLCertificate]? {
        let file = environment("SSL_CERT_FILE").flatMap { $0.isEmpty ? nil : $0 }
        let directoryList = environment("SSL_CERT_DIR").flatMap { $0.isEmpty ? nil : $0 }
        guard file != nil || directoryList != nil else { return nil }
        var roots: [NIOSSLCertificate] = []
        var seen = Set<NIOSSLCertificate>()
        func add(_ path: String) -> Bool {
            guard case .success(let bytes) = FileContents.read(path, limit: 16 << 20) else { return false }
            for certificate in (try? NIOSSLCertificate.fromPEMBytes(bytes)) ?? [] where seen.insert(certificate).inserted {
                roots.append(certificate)
            }
            return true
        }
        for path in file.map({ [$0] }) ?? bundleFiles {
            if add(path) { break }
        }
        let directories = directoryList.map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? directories
        for directory in directories {
            guard case .success(let names) = FileContents.directoryEntries(directory) else { continue }
            for name in names.sorted() { _ = add("\(directory)/\(name)") }
        }
        return roots
    }
}

import Foundation
import NIOSSL
import XCTest

@testable import ReachExporterProbes

/// SSL_CERT_FILE and SSL_CERT_DIR, read as Go's crypto/x509 reads them on Linux
/// (`crypto/x509/root_unix.go`): the file replaces the bundle list, the directories
/// (colon-separated) replace the directory list, and both count.
final class EnvironmentTrustRootsTests: XCTestCase {
    /// Two self-signed roots (openssl req -x509 -newkey ec, CN "root a.test", "root b.test").
    private static let rootA = """
        -----BEGIN CERTIFICATE-----
        MIIBgjCCASigAwIBAgITPbVUxhbTCK8DlABy5IHuyAgs8jAKBggqhkjOPQQDAjAW
        MRQwEgYDVQQDDAtyb290IGEudGVzdDAgFw0yNjExMjYwNzQ4MjBaGA8yMTI2MTEw
        MjA3NDgyMVowFjEUMBIGA1UEAwwLcm9vdCBhLnRlc3QwWTATBgcqhkjOPQIBBggq
        hkjOPQMBBwNCAAT3HpP5Tg+Zl3so1bYbpmjgU9mTsDIFXOjvNzpJwiBOUkmmY6K1
        bdw0Ev6UEL9oy+nmzuHMMhbCiAmN/zGCfm8vo1MwUTAdBgNVHQ4EFgQU67WXHGQC
        nbFtc0U2sKeHrwfJZKYwHwYDVR0jBBgwFoAU67WXHGQCnbFtc0U2sKeHrwfJZKYw
        DwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiAWCdNzutTvL52NXlOH
        TODxO8El25kauw17tiwsEJkZbwIhAPL9Hv/ORoGkGn8TudGX5zZ2WuVghZFQZW9j
        jMfTxi4V
        -----END CERTIFICATE-----
        """
    private static let rootB = """
        -----BEGIN CERTIFICATE-----
        MIIBhDCCASmgAwIBAgIULpMZEqqb1OqWoX1WsqyzSJ4feOYwCgYIKoZIzj0EAwIw
        FjEUMBIGA1UEAwwLcm9vdCBiLnRlc3QwIBcNMjYxMTI2MDc0ODIxWhgPMjEyNjEx
        MDIwNzQ4MjFaMBYxFDASBgNVBAMMC3Jvb3QgYi50ZXN0MFkwEwYHKoZIzj0CAQYI
        KoZIzj0DAQcDQgAEXkQByCAPmRPUo8WiaIDHzjXg1cuDk914qDmrrnIY2WIOCBbf
        FPH2XhehNEWjtMB4Dv+DUaVEfXbufBrqiGytGKNTMFEwHQYDVR0OBBYEFCrnDoZH
        TjkdDJNkljIWCAMlAMxwMB8GA1UdIwQYMBaAFCrnDoZHTjkdDJNkljIWCAMlAMxw
        MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSQAwRgIhAPhh6P5yI+Si2P+o
        xsQD6y5qHDFSeu4un9eQAjevkbRnAiEA6NmmT7ZVN6UKasoEQqp8WqR5Hzb+1E5s
        5H9PCVBbPtg=
        -----END CERTIFICATE-----
        """

    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "reach-trust-\(UUID().uuidString)"
        for sub in ["one", "two", "empty"] {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(sub)", withIntermediateDirectories: true)
        }
        try (Self.rootA + "\n" + Self.rootB + "\n").write(toFile: "\(directory)/bundle.pem", atomically: true, encoding: .utf8)
        try Self.rootA.write(toFile: "\(directory)/one/a.pem", atomically: true, encoding: .utf8)
        // Any name counts, not only OpenSSL's hashed ones; a file that is not PEM adds nothing.
        try Self.rootB.write(toFile: "\(directory)/two/b-root", atomically: true, encoding: .utf8)
        try "not a certificate\n".write(toFile: "\(directory)/two/README", atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func roots(_ variables: [String: String]) -> [NIOSSLCertificate]? {
        EnvironmentTrustRoots.roots { variables[$0] }
    }

    private func certificates(_ pem: String...) throws -> [NIOSSLCertificate] {
        try pem.map { try NIOSSLCertificate(bytes: Array($0.utf8), format: .pem) }
    }

    func testUnsetOrEmptyLeavesTheDefault() {
        XCTAssertNil(roots([:]))
        XCTAssertNil(roots(["SSL_CERT_FILE": "", "SSL_CERT_DIR": ""]))
    }

    func testTheFileReplacesTheBundle() throws {
        let found = try XCTUnwrap(roots(["SSL_CERT_FILE": "\(directory)/bundle.pem", "SSL_CERT_DIR": "\(directory)/empty"]))
        XCTAssertEqual(found, try certificates(Self.rootA, Self.rootB))
    }

    func testEveryDirectoryCountsOnceEachAndAMissingOneIsSkipped() throws {
        let variables = [
            "SSL_CERT_FILE": "\(directory)/nonexistent.pem",
            "SSL_CERT_DIR": "\(directory)/one:\(directory)/nonexistent:\(directory)/two:\(directory)/one",
        ]
        XCTAssertEqual(try XCTUnwrap(roots(variables)), try certificates(Self.rootA, Self.rootB))
    }

    func testNothingFoundTrustsNothing() throws {
        let variables = ["SSL_CERT_FILE": "\(directory)/nonexistent.pem", "SSL_CERT_DIR": "\(directory)/empty"]
        XCTAssertEqual(try XCTUnwrap(roots(variables)), [])
    }
}

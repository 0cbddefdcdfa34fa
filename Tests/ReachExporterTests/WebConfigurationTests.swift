import ReachCore
import ReachExporterSystem
import ReachSystem
import XCTest

@testable import ReachExporter

/// exporter-toolkit's web configuration: basic_auth_users with bcrypt hashes, checked with
/// libxcrypt's crypt_r; tls_server_config and http_server_config checked as exporter-toolkit
/// v0.8's ConfigToTLSConfig and validateHeaderConfig check them.
final class WebConfigurationTests: XCTestCase {
    /// "s3cret", made with python3's crypt.crypt(pw, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)) (cost 4, so the test is quick).
    private let hash = "$2b$04$fdQK3JbTfwIE5K/s5YVa.e7veiF6wO.J5D2J5eOgrGrxJDaK7/aWS"

    private func basic(_ credentials: String) -> String { "Basic " + Base64.encoded(Array(credentials.utf8)) }

    func testBasicAuthUsers() throws {
        let web = try WebConfiguration.parse("basic_auth_users:\n  prometheus: \(hash)\n")
        XCTAssertEqual(web.basicAuthUsers, [HeaderField(name: "prometheus", value: hash)])
        XCTAssertTrue(web.authorizes(basic("prometheus:s3cret")))
        XCTAssertTrue(web.authorizes("basic " + Base64.encoded(Array("prometheus:s3cret".utf8))), "the scheme's case does not matter")
        XCTAssertFalse(web.authorizes(basic("prometheus:s3cre")))
        XCTAssertFalse(web.authorizes(basic("prometheus:s3cret ")))
        XCTAssertFalse(web.authorizes(basic("other:s3cret")))
        XCTAssertFalse(web.authorizes(basic("prometheus")))
        XCTAssertFalse(web.authorizes("Bearer s3cret"))
        XCTAssertFalse(web.authorizes("Basic !!!!"))
        XCTAssertFalse(web.authorizes(nil))
        XCTAssertTrue(WebConfiguration().authorizes(nil), "without users every request goes on")
    }

    func testPasswordHash() {
        XCTAssertTrue(PasswordHash.verify("s3cret", against: hash))
        XCTAssertFalse(PasswordHash.verify("S3cret", against: hash))
        XCTAssertFalse(PasswordHash.verify("s3cret", against: "$2b$04$short"))
        XCTAssertFalse(PasswordHash.verify("s3cret", against: ""))
        XCTAssertFalse(PasswordHash.verify("s3\u{0}cret", against: hash))
    }

    func testRefusals() {
        func message(_ yaml: String) -> String? {
            do {
                _ = try WebConfiguration.parse(yaml)
                return nil
            } catch {
                return error.message
            }
        }
        XCTAssertEqual(message("basic_auth_users:\n  u: plain\n"), "line 2: basic_auth_users.u: not a bcrypt hash ($2y$, $2b$ or $2a$)")
        XCTAssertEqual(message("tls_server_config:\n  cert_file: c.pem\n"), "line 2: tls_server_config: missing key_file")
        XCTAssertEqual(message("tls_server_config:\n  key_file: k.pem\n"), "line 2: tls_server_config: missing cert_file")
        XCTAssertEqual(message("tls_server_config: {client_auth_type: NoClientCert}\n"), "line 1: tls_server_config: missing cert_file")
        XCTAssertEqual(message("tls_server_config:\n  cert_file: c\n  key_file: k\n  client_ca_file: ca.pem\n"),
                       "line 2: tls_server_config: Client CA's have been configured without a Client Auth Policy")
        XCTAssertEqual(message("tls_server_config:\n  cert_file: c\n  key_file: k\n  client_auth_type: Maybe\n"),
                       "line 4: tls_server_config.client_auth_type: Invalid ClientAuth: Maybe")
        XCTAssertEqual(message("tls_server_config:\n  cert_file: c\n  key_file: k\n  min_version: TLS14\n"),
                       "line 4: tls_server_config.min_version: unknown TLS version: TLS14")
        XCTAssertEqual(message("tls_server_config:\n  cert_file: c\n  key_file: k\n  min_version: TLS13\n  max_version: TLS12\n"),
                       "line 2: tls_server_config: min_version is above max_version")
        XCTAssertEqual(message("tls_server_config:\n  cert_file: c\n  key_file: k\n  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n"),
                       "line 4: tls_server_config.cipher_suites: unknown cipher: TLS_RSA_WITH_RC4_128_SHA")
        XCTAssertEqual(message("http_server_config:\n  headers:\n    Server: reach\n"),
                       "line 3: http_server_config.headers: HTTP header \"Server\" can not be configured")
        XCTAssertEqual(message("http_server_config:\n  headers:\n    X-Frame-Options: allow\n"),
                       "line 3: http_server_config.headers: invalid value for X-Frame-Options. "
                           + "Expected one of: deny, sameorigin, but got: allow")
        XCTAssertEqual(message("tls_server_config:\n  cert_fil: c.pem\n"),
                       "line 2: tls_server_config.cert_fil: unknown key (blackbox_exporter 0.23 has no such setting)")
        XCTAssertEqual(message("users: {}\n"), "line 1: users: unknown key (blackbox_exporter 0.23 has no such setting)")
        XCTAssertNil(message("tls_server_config: {client_auth_type: ''}\nhttp_server_config: {http2: false}\n"))
        XCTAssertNil(message(""))
    }

    /// Relative file names are the configuration file's directory's (Prometheus common's
    /// config.JoinDir); no file and no client authentication: plain HTTP.
    func testTLSServer() throws {
        let yaml = """
            tls_server_config:
              cert_file: server.crt
              key_file: /etc/keys/server.key
              client_auth_type: RequireClientCert
              client_ca_file: ca/clients.pem
              min_version: TLS13
              cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256]
              prefer_server_cipher_suites: false
            http_server_config:
              headers:
                X-Frame-Options: deny
                Strict-Transport-Security: max-age=31536000
            """
        let tls = try XCTUnwrap(try WebConfiguration.parse(yaml, directory: "/srv/web").tls)
        XCTAssertEqual(tls.certificateFile, "/srv/web/server.crt")
        XCTAssertEqual(tls.keyFile, "/etc/keys/server.key")
        XCTAssertEqual(tls.clientCAFile, "/srv/web/ca/clients.pem")
        XCTAssertEqual(tls.clientAuth, .requireAnyClientCert, "exporter-toolkit's older name")
        XCTAssertEqual(tls.minimumVersion, .tls13)
        XCTAssertEqual(tls.maximumVersion, .tls13)
        XCTAssertEqual(tls.cipherSuites, [0xC02F, 0x1301])
        XCTAssertEqual(try WebConfiguration.parse(yaml).headers.map(\.name), ["X-Frame-Options", "Strict-Transport-Security"])
        XCTAssertNil(try WebConfiguration.parse("tls_server_config: {min_version: TLS13}\n").tls)
        XCTAssertEqual(WebConfiguration.directory(of: "web.yml"), ".")
        XCTAssertEqual(WebConfiguration.directory(of: "/web.yml"), "/")
        XCTAssertEqual(WebConfiguration.joined(".", "a.pem"), "./a.pem")
        let modes = WebConfiguration.ClientAuth.allCases
        XCTAssertEqual(modes.filter(\.asks).count, 4)
        XCTAssertEqual(modes.filter(\.requires), [.requireAnyClientCert, .requireAndVerifyClientCert])
        XCTAssertEqual(modes.filter(\.verifies), [.verifyClientCertIfGiven, .requireAndVerifyClientCert])
    }
}

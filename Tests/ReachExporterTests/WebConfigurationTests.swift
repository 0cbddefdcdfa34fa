import ReachExporterSystem
import ReachSystem
import XCTest

@testable import ReachExporter

/// exporter-toolkit's web configuration: basic_auth_users with bcrypt hashes, checked with
/// libxcrypt's crypt_r; TLS serving refused while it is not there.
final class WebConfigurationTests: XCTestCase {
    /// "s3cret", made with python3's crypt.crypt(pw, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)) (cost 4, so the test is quick).
    private let hash = "$2b$04$fdQK3JbTfwIE5K/s5YVa.e7veiF6wO.J5D2J5eOgrGrxJDaK7/aWS"

    private func basic(_ credentials: String) -> String { "Basic " + base64(Array(credentials.utf8)) }

    /// RFC 4648 base64, written here independently of the decoder under test.
    private func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = Array(bytes[start..<min(start + 3, bytes.count)])
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for index in 0..<4 { out.append(index <= chunk.count ? alphabet[(value >> (18 - 6 * index)) & 63] : "=") }
        }
        return out
    }

    func testBasicAuthUsers() throws {
        let web = try WebConfiguration.parse("basic_auth_users:\n  prometheus: \(hash)\n")
        XCTAssertEqual(web.basicAuthUsers, [HeaderField(name: "prometheus", value: hash)])
        XCTAssertTrue(web.authorizes(basic("prometheus:s3cret")))
        XCTAssertTrue(web.authorizes("basic " + base64(Array("prometheus:s3cret".utf8))), "the scheme's case does not matter")
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
        XCTAssertEqual(message("tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n"),
                       "line 2: tls_server_config: serving TLS is not yet supported by reach-exporter")
        XCTAssertEqual(message("tls_server_config:\n  cert_fil: c.pem\n"),
                       "line 2: tls_server_config.cert_fil: unknown key (blackbox_exporter 0.23 has no such setting)")
        XCTAssertEqual(message("users: {}\n"), "line 1: users: unknown key (blackbox_exporter 0.23 has no such setting)")
        XCTAssertNil(message("tls_server_config: {client_auth_type: NoClientCert}\nhttp_server_config: {http2: false}\n"))
        XCTAssertNil(message(""))
    }
}

import ReachCore
import XCTest

@testable import ReachExporter

/// The http prober's pure parts: the request it writes, how it judges a response, and what
/// the TLS metrics' labels say of a certificate.
final class HTTPProberTests: XCTestCase {
    func testSHA256MatchesFIPS180Examples() {
        func hex(_ bytes: [UInt8]) -> String {
            bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        }
        XCTAssertEqual(hex(SHA256.digest([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex(SHA256.digest(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            hex(SHA256.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// A certificate made for this test (python3-cryptography): subject C=DE, O="a, b+c",
    /// OU=" lab", CN=web.lab; issuer CN="#CA"; DNS names web.lab and *.web.lab. Its
    /// fingerprint is `openssl x509 -fingerprint -sha256`'s.
    static let certificate: [UInt8] = {
        let hex = """
            3082015d30820103a003020102020107300a06082a8648ce3d040302300e310c300a06035504030c03234341301e170d3236303130313030303030305a\
            170d3236303133313030303030305a303f310b3009060355040613024445310f300d060355040a0c06612c20622b63310d300b060355040b0c04206c\
            61623110300e06035504030c077765622e6c61623059301306072a8648ce3d020106082a8648ce3d03010703420004f04987f23b8a74aa33aaab0369eb\
            9c944fa38c84f2fc1ba38e41df53daab6f512642c52d49948af02df0b2aef642f7814f3ffcbcd08c7fe78d6dca49dd1ab0afa321301f301d0603551d11\
            0416301482077765622e6c616282092a2e7765622e6c6162300a06082a8648ce3d040302034800304502203b7af95685a8b30774d6348acf34bf7426b7\
            3ec493f6df26e8f5ac33c41147c5022100ac36e68e418cbdf7b7d0a59894797096ffeaf85d10938326cc500aa2e93137ce
            """
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }()

    func testCertificateLabelsAreWhatGoWrites() {
        let summary = CertificateSummary(der: Self.certificate)
        XCTAssertEqual(summary.fingerprint, "e8a814f198a91bbdd838580d17dddcb96f61e5b0b398d46edfb4a39ed4837630")
        // Go's pkix.Name.String(): CN, OU, O, C (reversed RDNSequence), with its escapes.
        XCTAssertEqual(summary.subject, "CN=web.lab,OU=\\ lab,O=a\\, b\\+c,C=DE")
        XCTAssertEqual(summary.issuer, "CN=\\#CA")
        XCTAssertEqual(summary.dnsNames, ["web.lab", "*.web.lab"])
    }

    func testTruncatedOrGarbageCertificatesGiveEmptyLabelsNotATrap() {
        for length in stride(from: 0, to: Self.certificate.count, by: 7) {
            let summary = CertificateSummary(der: Array(Self.certificate[..<length]))
            XCTAssertEqual(summary.fingerprint.count, 64)
        }
        XCTAssertEqual(CertificateSummary(der: [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]).subject, "")
        XCTAssertEqual(CertificateSummary(der: [0x30, 0x81]).dnsNames, [])
    }

    func testTheRequestCarriesTheModulesMethodFieldsCredentialsAndBody() throws {
        var settings = HTTPProberSettings()
        settings.method = "POST"
        settings.headers = [.init(name: "Host", value: "named.lab"), .init(name: "X-Test", value: "yes")]
        settings.body = "a=1"
        settings.client.basicAuth = .init(username: "Aladdin", password: "open sesame")
        let target = ProbeTarget(host: "198.51.100.7", port: 443, path: "/form", secure: true)
        let request = String(decoding: try ExporterProber.request(for: target, settings: settings).http1, as: UTF8.self)
        XCTAssertEqual(
            request,
            "POST /form HTTP/1.1\r\nUser-Agent: reach-exporter/1\r\nAccept: */*\r\nHost: named.lab\r\nX-Test: yes\r\n"
                + "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\nContent-Length: 3\r\nConnection: close\r\n\r\na=1")
        // The Host field also names the server for TLS, unless server_name does.
        XCTAssertEqual(ExporterProber.tls(settings, for: target).serverName, "named.lab")
        settings.client.tls.serverName = "sni.lab"
        XCTAssertEqual(ExporterProber.tls(settings, for: target).serverName, "sni.lab")
        // HTTP/2 offered by ALPN, as Go's http2.ConfigureTransports offers it, unless enable_http2 is off.
        XCTAssertEqual(ExporterProber.tls(settings, for: target).applicationProtocols, ["h2", "http/1.1"])
        settings.client.enableHTTP2 = false
        XCTAssertEqual(ExporterProber.tls(settings, for: target).applicationProtocols, [])
        // authorization (common's Authorization): its type, then its credentials.
        var bearer = HTTPProberSettings()
        bearer.client.authorization = .init(type: "Bearer", credentials: "t0ken")
        let authorized = String(decoding: try ExporterProber.request(for: target, settings: bearer).http1, as: UTF8.self)
        XCTAssertTrue(authorized.contains("\r\nAuthorization: Bearer t0ken\r\n"), authorized)
    }

    func testTheFinalResponseIsJudgedAsBlackboxExporterJudgesIt() {
        let text = "HTTP/1.1 200 OK\r\nServer: nginx\r\nX-Probe: one\r\nx-probe: two\r\nContent-Length: 14\r\n\r\nhello over TLS"
        guard case .complete(let response) = HTTPResponse.parse(Array(text.utf8), connectionClosed: true) else {
            return XCTFail("the response does not parse")
        }
        func pattern(_ text: String) -> BlackboxRegex { try! BlackboxRegex(text) }
        func judge(_ change: (inout HTTPProberSettings) -> Void, tls: Bool = false) -> String {
            var settings = HTTPProberSettings()
            change(&settings)
            var http = ProbeMeasurement.HTTP()
            http.version = 1.1
            if tls { http.tls = .init(version: "TLS 1.3", leaf: [], verifiedChain: [], certificates: []) }
            let reason = ExporterProber.judge(response, settings, into: &http)
            return (reason?.rawValue ?? "passes") + (http.failedDueToRegex ? " (regex)" : "")
        }
        XCTAssertEqual(judge { _ in }, "passes")
        XCTAssertEqual(judge { $0.failIfBodyNotMatchesRegexp = [pattern("over T")] }, "passes")
        XCTAssertEqual(judge { $0.failIfBodyMatchesRegexp = [pattern("^hello")] }, "body_regex (regex)")
        XCTAssertEqual(judge { $0.failIfHeaderMatches = [.init(header: "x-PROBE", regexp: pattern("tw"))] }, "header_regex (regex)")
        XCTAssertEqual(judge { $0.failIfHeaderNotMatches = [.init(header: "X-Probe", regexp: pattern("^two$"))] }, "passes")
        XCTAssertEqual(judge { $0.failIfHeaderNotMatches = [.init(header: "X-None", regexp: pattern("a"))] }, "header_regex (regex)")
        XCTAssertEqual(judge { $0.failIfHeaderNotMatches = [.init(header: "X-None", regexp: pattern("a"), allowMissing: true)] }, "passes")
        XCTAssertEqual(judge { $0.bodySizeLimit = 4 }, "body_too_large")
        XCTAssertEqual(judge { $0.bodySizeLimit = 14 }, "passes")
        XCTAssertEqual(judge { $0.validHTTPVersions = ["HTTP/1.0"] }, "http_version")
        XCTAssertEqual(judge { $0.failIfNotSSL = true }, "not_ssl")
        XCTAssertEqual(judge({ $0.failIfNotSSL = true }, tls: true), "passes")
        XCTAssertEqual(judge({ $0.failIfSSL = true }, tls: true), "ssl")
    }
}

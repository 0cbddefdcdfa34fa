#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// exporter-toolkit's web side: the web configuration's tls_server_config (a CA, server and
/// client certificates made by openssl(1) for the test; curl(1) and Prometheus as the
/// clients), more than one listening address, and blackbox's route prefix.
extension ExporterTests {
    /// Two addresses (exporter-toolkit's repeated --web.listen-address), every endpoint under
    /// --web.route-prefix, / redirected to --web.external-url, the rest 404.
    func testListenAddressesAndRoutePrefix() throws {
        try Privilege.requireRootAndTools(["ip", "curl"])
        let client = try lab.namespace("prefix")
        try client.ip("link", "set", "lo", "up")
        let exporter = try startExporter(
            ["--web.listen-address", "[::1]:10116", "--web.external-url", "http://lab.example/bb/", "--allow", "127.0.0.0/8"], in: client)
        func answer(_ url: String) throws -> String {
            try client.exec(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", url]).stdout
        }
        for base in ["http://127.0.0.1:10115", "http://[::1]:10116"] {
            XCTAssertEqual(try answer("\(base)/bb/metrics"), "200 ", base)
            XCTAssertEqual(try answer("\(base)/bb/probe?module=route&target=127.0.0.1"), "200 ", base)
            XCTAssertEqual(try answer("\(base)/bb/-/healthy"), "200 ", base)
            XCTAssertEqual(try answer("\(base)/metrics"), "404 ", base)
            XCTAssertEqual(try answer("\(base)/"), "302 http://lab.example/bb", base)
        }
        XCTAssertTrue(exporter.log.contains("listening on 127.0.0.1:10115"), exporter.log)
        XCTAssertTrue(exporter.log.contains("listening on [::1]:10116"), exporter.log)
        kill(exporter.pid, SIGTERM)
        XCTAssertEqual(exporter.waitForExit(), 0, exporter.log)
    }

    /// The CA, the exporter's certificate (for 127.0.0.1), a client's it signed, and a
    /// stranger's, self-signed; each key P-256.
    private func makeCertificates(in directory: String) throws {
        func openssl(_ arguments: [String]) throws {
            let result = try Subprocess.run(["openssl"] + arguments)
            guard result.status == 0 else { throw HarnessError("openssl \(arguments.joined(separator: " ")): \(result)") }
        }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try openssl(
            ["req", "-x509"] + key + ["-keyout", "\(directory)/ca.key", "-out", "\(directory)/ca.crt", "-days", "2", "-subj", "/CN=lab-ca"])
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: "\(directory)/san.ext", atomically: true, encoding: .utf8)
        let forTheAddress = ["-extfile", "\(directory)/san.ext"]
        for (name, extensions) in [("server", forTheAddress), ("renewed", forTheAddress), ("client", [])] {
            try openssl(["req"] + key + ["-keyout", "\(directory)/\(name).key", "-out", "\(directory)/\(name).csr", "-subj", "/CN=\(name)"])
            try openssl(
                ["x509", "-req", "-in", "\(directory)/\(name).csr", "-CA", "\(directory)/ca.crt", "-CAkey", "\(directory)/ca.key",
                 "-CAcreateserial", "-out", "\(directory)/\(name).crt", "-days", "2"] + extensions)
        }
        try openssl(["req", "-x509"] + key + ["-keyout", "\(directory)/stranger.key", "-out", "\(directory)/stranger.crt", "-days", "2",
                                              "-subj", "/CN=stranger"])
    }

    /// curl's status for /metrics over TLS as `who` (nil: no certificate), 0 when the
    /// handshake was refused.
    private func status(_ who: String?, in namespace: Namespace, directory: String, extra: [String] = []) throws -> Int {
        let certificate = who.map { ["--cert", "\(directory)/\($0).crt", "--key", "\(directory)/\($0).key"] } ?? []
        let result = try namespace.exec(
            ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-u", "prometheus:s3cret", "--cacert", "\(directory)/ca.crt"]
                + certificate + extra + ["https://127.0.0.1:10115/metrics"])
        return Int(result.stdout) ?? -1
    }

    /// web.yml in `directory`, its files named relatively (the configuration's directory's).
    private func writeWeb(
        _ directory: String, hash: String, _ clientAuth: String, certificate: String = "server", more: String = ""
    ) throws {
        let text = """
            tls_server_config:
              cert_file: \(certificate).crt
              key_file: \(certificate).key
              client_auth_type: \(clientAuth)
              client_ca_file: ca.crt
            \(more)
            basic_auth_users:
              prometheus: '\(hash)'
            http_server_config:
              headers:
                X-Content-Type-Options: nosniff

            """
        try text.write(toFile: "\(directory)/web.yml", atomically: true, encoding: .utf8)
    }

    /// --web.systemd-socket: systemd-socket-activate(1) listens and passes the socket, as a
    /// .socket unit does, and starts the exporter at the first connection, which the exporter
    /// then answers; it serves that socket and not its --listen address.
    func testSystemdSocketIsServed() throws {
        try Privilege.requireRootAndTools(["ip", "curl", "systemd-socket-activate", "ss"])
        let client = try lab.namespace("socket")
        try client.ip("link", "set", "lo", "up")
        let exporter = try lab.launch(
            ["systemd-socket-activate", "-l", "127.0.0.1:10117", Self.exporterPath, "--web.systemd-socket", "--web.external-url",
             "http://lab.example/", "--listen", "127.0.0.1:10118"], in: client, label: "reach-exporter")
        try exporter.waitUntilReady(marker: "Listening on 127.0.0.1:10117", timeout: 10)
        let answer = try client.exec(
            ["curl", "-s", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:10117/-/healthy"])
        XCTAssertEqual(answer.stdout, "200", "\(answer)")
        try exporter.waitUntilReady(marker: "listening on 127.0.0.1:10117", timeout: 10)
        XCTAssertEqual(try client.exec(["ss", "-Hltn", "sport = :10118"]).stdout, "", "the --listen address is not taken")
        kill(exporter.pid, SIGTERM)
        XCTAssertEqual(exporter.waitForExit(), 0, exporter.log)
        let none = try client.exec([Self.exporterPath, "--web.systemd-socket", "--web.external-url", "http://lab.example/"])
        XCTAssertEqual(none.status, 1, "\(none)")
        XCTAssertEqual(none.stderrLines.last, "reach-exporter: no socket activation file descriptors found", "\(none)")
    }

    /// Prometheus 2.42's scrape tls_config: its client certificate and basic auth get the
    /// metrics; without the certificate the scrape fails.
    private func assertPrometheusScrapesOverTLS(in client: Namespace, directory: String) throws {
        func job(_ name: String, certificate: Bool) -> String {
            """
              - job_name: \(name)
                scheme: https
                basic_auth: {username: prometheus, password: s3cret}
                tls_config:
                  ca_file: \(directory)/ca.crt
            \(certificate ? "      cert_file: \(directory)/client.crt\n      key_file: \(directory)/client.key" : "")
                static_configs:
                  - targets: [127.0.0.1:10115]

            """
        }
        let config = "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n"
            + job("with_certificate", certificate: true) + job("without_certificate", certificate: false)
        let prometheus = try lab.launch(
            ["prometheus", "--config.file=\(try lab.script("prometheus.yml", config))", "--storage.tsdb.path=\(directory)/tsdb",
             "--web.listen-address=127.0.0.1:19090"], in: client, label: "prometheus")
        try prometheus.waitUntilReady(marker: "Server is ready to receive web requests", timeout: 30)
        var up: [String: String] = [:]
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            up = values(try prometheusQuery("up", in: client, port: 19090), by: "job")
            if up.count == 2 { break }
            usleep(200_000)
        }
        XCTAssertEqual(up, ["with_certificate": "1", "without_certificate": "0"], "prometheus log:\n\(prometheus.log)")
        let scraped = try prometheusQuery("process_start_time_seconds{job=\"with_certificate\"}", in: client, port: 19090)
        XCTAssertEqual(scraped.count, 1, "the exporter's own metrics came over TLS")

        kill(prometheus.pid, SIGTERM)
    }

    /// The file is read again at each handshake: the client policies one after the other, a
    /// minimum version, a renewed certificate, a file that cannot be used, without a restart.
    private func assertEachHandshakeReadsTheFile(
        in client: Namespace, directory: String, hash: String
    ) throws {
        let path = "\(directory)/web.yml"
        func write(_ clientAuth: String, certificate: String = "server", more: String = "") throws {
            try writeWeb(directory, hash: hash, clientAuth, certificate: certificate, more: more)
        }
        let cases: [(String, client: Int, stranger: Int, none: Int)] = [
            ("RequestClientCert", 200, 200, 200), ("RequireAnyClientCert", 200, 200, 0), ("VerifyClientCertIfGiven", 200, 0, 200),
        ]
        for (policy, signed, stranger, none) in cases {
            try write(policy)
            XCTAssertEqual(try status("client", in: client, directory: directory), signed, policy)
            XCTAssertEqual(try status("stranger", in: client, directory: directory), stranger, policy)
            XCTAssertEqual(try status(nil, in: client, directory: directory), none, policy)
        }
        try write("RequireAndVerifyClientCert", more: "  min_version: TLS13")
        XCTAssertEqual(try status("client", in: client, directory: directory, extra: ["--tls-max", "1.2"]), 0, "TLS 1.2 refused")
        XCTAssertEqual(try status("client", in: client, directory: directory, extra: ["--tlsv1.3"]), 200)
        try write("RequireAndVerifyClientCert", certificate: "renewed")
        let subject = try client.exec([
            "sh", "-c", "cd \"$1\" && openssl s_client -connect 127.0.0.1:10115 -CAfile ca.crt -cert client.crt -key client.key"
                + " </dev/null 2>/dev/null | openssl x509 -noout -subject", "sh", directory,
        ], timeout: 10)
        XCTAssertEqual(subject.stdout, "subject=CN = renewed\n", "\(subject)")
        // A file that cannot be used any more: the handshake fails, the exporter goes on.
        try "tls_server_config:\n  cert_file: gone.crt\n  key_file: gone.key\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try status("client", in: client, directory: directory), 0)
        try write("RequireAndVerifyClientCert")
        XCTAssertEqual(try status("client", in: client, directory: directory), 200)
    }

    func testTLSWithClientCertificatesForCurlAndPrometheus() throws {
        try Privilege.requireRootAndTools(["ip", "python3", "openssl", "curl", "prometheus"])
        let client = try lab.namespace("tls")
        try client.ip("link", "set", "lo", "up")
        let directory = lab.directory
        try makeCertificates(in: directory)
        let made = try Subprocess.run([
            "python3", "-W", "ignore", "-c", "import crypt; print(crypt.crypt('s3cret', crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))",
        ])
        let hash = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let path = "\(directory)/web.yml"
        try writeWeb(directory, hash: hash, "RequireAndVerifyClientCert")
        let exporter = try startExporter(["--web.config.file", path], in: client)
        XCTAssertTrue(exporter.log.contains("TLS is enabled"), exporter.log)

        XCTAssertEqual(try status("client", in: client, directory: directory), 200)
        XCTAssertEqual(try status(nil, in: client, directory: directory), 0, "no certificate")
        XCTAssertEqual(try status("stranger", in: client, directory: directory), 0, "not signed by the CA")
        XCTAssertEqual(try status("client", in: client, directory: directory, extra: ["-u", "prometheus:wrong"]), 401)
        let plain = try client.exec(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:10115/metrics"])
        XCTAssertEqual(plain.stdout, "000", "no plain HTTP on a TLS port")
        let headers = try client.exec(
            ["curl", "-s", "-D", "-", "-o", "/dev/null", "-u", "prometheus:s3cret", "--cacert", "\(directory)/ca.crt", "--cert",
             "\(directory)/client.crt", "--key", "\(directory)/client.key", "https://127.0.0.1:10115/-/healthy"])
        XCTAssertTrue(headers.stdout.contains("X-Content-Type-Options: nosniff\r\n"), headers.stdout)

        try assertPrometheusScrapesOverTLS(in: client, directory: directory)

        try assertEachHandshakeReadsTheFile(in: client, directory: directory, hash: hash)
        XCTAssertTrue(exporter.log.contains("TLS handshake refused: \(directory)/gone.crt: No such file or directory"), exporter.log)
        kill(exporter.pid, SIGTERM)
        XCTAssertEqual(exporter.waitForExit(), 0, exporter.log)
    }
}

extension ExporterStartTests {
    /// A certificate or key that cannot be served stops the start (78), as exporter-toolkit
    /// loads the pair once before serving.
    func testATLSPairThatCannotBeServedStopsTheStart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-exporter-tls-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let web = "\(directory)/web.yml"
        try "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n".write(toFile: web, atomically: true, encoding: .utf8)
        let missing = try run(["--web.config.file", web])
        XCTAssertEqual(missing.status, 78, "\(missing)")
        XCTAssertEqual(missing.stderrLines, ["reach-exporter: \(directory)/server.crt: No such file or directory"])
        XCTAssertEqual(missing.stdout, "")
        try "not a certificate\n".write(toFile: "\(directory)/server.crt", atomically: true, encoding: .utf8)
        let garbage = try run(["--web.config.file", web])
        XCTAssertEqual(garbage.status, 78, "\(garbage)")
        XCTAssertEqual(garbage.stderrLines.count, 1, "\(garbage)")
        XCTAssertTrue(garbage.stderr.hasPrefix("reach-exporter: \(directory)/server.crt: "), garbage.stderr)
    }
}

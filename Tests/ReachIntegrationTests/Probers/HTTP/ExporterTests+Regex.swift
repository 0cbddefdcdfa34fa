import Foundation
import TestSupport
import XCTest

/// Regular expressions held to Go's regexp itself: one http module per pattern
/// (`fail_if_body_not_matches_regexp`), each probed against a handful of bodies served by
/// http.server in the far namespace, by reach-exporter and by Debian's blackbox_exporter 0.23.
/// probe_success must be the same for every pair: ASCII, multi-line, not UTF-8, Unicode.
extension ExporterTests {
    static let regexBodies: [(name: String, bytes: [UInt8])] = [
        ("ascii", Array("HTTP ok 200\nstatus: UP\nversion=1.2.3 a{,2} x{\n".utf8)),
        ("lines", Array("first line\nsecond LINE\r\n\ntab\tand\u{0B}vt\nKelvin \u{212A}elvin aab aaab\n".utf8)),
        ("not-utf8", [0x6F, 0x6B, 0xFF, 0x20, 0xE2, 0x82, 0x20, 0x41, 0xC0, 0xAF, 0x0A]),
        ("unicode", Array("Straße ΣΑΣ ſ café naïve 日本語 ٣ ǅ\n".utf8)),
        ("empty", []),
        ("as", Array(repeating: UInt8(ascii: "a"), count: 4096)),
    ]

    static let regexPatterns: [String] = [
        "^HTTP ok", #"\n$"#, "UP$", "(?m)UP$", "(?m)^second", "first.line", "line.second", "(?s)line.second",
        #"\d+\.\d+\.\d+"#, #"version=\d{1,3}\.\d{1,3}"#, #"\bLINE\b"#, #"\Bine"#, "(?i)kelvin", "(?i)STRAßE", "(?i)σας",
        #"(?i)\x{212A}elvin"#, "(?i)ſ", #"(?i)[^k]elvin"#, #"\p{Lu}{3}"#, #"^\P{L}"#, #"\p{Nd}"#, "[[:^ascii:]]",
        "[[:punct:]]{2}", #"[^\x00-\x7F]"#, #"\x{FFFD}"#, #"^ok\x{FFFD} \x{FFFD}\x{FFFD} A"#, #"^.{10}\n$"#,
        "^a|ab", "(a*)*b", "(x+x+)+y", "(?U)a+b", #"caf\x{e9}"#, #"cafe\x{301}"#, #"na\x{ef}ve"#, "[日本]+語",
        #"\Qversion=1.2\E"#, "a{,2}", "x{$", "status:{0} UP", #"\Afirst"#, #"\Aversion"#, #"line\z"#, #"\n\z"#,
        #"and\svt"#, #"and\vvt"#, "and[[:space:]]vt", "(?m)^$", #"(?m)LINE\r$"#, "^$", "(?s)^.*$", "(a|ab)(c|bcd)",
        #"[\d\W]{3}"#, "(?i)ǆ", #"\pN\s\pL"#, "a{999}$", "a{1000}$", "(?:a{2}){3}b",
    ]

    /// A pattern written in a YAML single-quoted scalar (a quote doubled).
    private static func quoted(_ pattern: String) -> String {
        "'" + pattern.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
    }

    func testRegularExpressionsMatchAsBlackboxExporter() throws {
        let net = try network()
        try Privilege.requireRootAndTools(["prometheus-blackbox-exporter"])
        let bodies = "\(lab.directory)/bodies"
        try FileManager.default.createDirectory(atPath: bodies, withIntermediateDirectories: true)
        for body in Self.regexBodies {
            XCTAssertTrue(FileManager.default.createFile(atPath: "\(bodies)/\(body.name)", contents: Data(body.bytes)))
        }
        var modules = "modules:\n"
        for (index, pattern) in Self.regexPatterns.enumerated() {
            modules += "  re\(index):\n    prober: http\n    timeout: 3s\n    http:\n"
            modules += "      fail_if_body_not_matches_regexp: [\(Self.quoted(pattern))]\n"
        }
        try startBesideBlackbox("regex.yml", modules: modules, allowing: ["198.18.0.0/15"], in: net.client)
        // One client process for every probe: a process per request would cost minutes.
        var queries: [(label: String, query: String)] = []
        for (index, pattern) in Self.regexPatterns.enumerated() {
            for body in Self.regexBodies {
                let target = "http%3A%2F%2F198.18.0.1%3A8080%2Fbodies%2F\(body.name)"
                queries.append(("\(pattern) on \(body.name)", "/probe?module=re\(index)&target=\(target)"))
            }
        }
        let theirs = try probeSuccesses(queries.map { "http://127.0.0.1:19115\($0.query)" }, in: net.client)
        let ours = try probeSuccesses(queries.map { "http://127.0.0.1:10115\($0.query)" }, in: net.client)
        XCTAssertEqual(theirs.count, queries.count)
        XCTAssertEqual(ours.count, queries.count)
        var compared = 0
        for (index, query) in queries.enumerated() where index < theirs.count && index < ours.count {
            XCTAssertNotNil(Double(theirs[index]), "blackbox_exporter: \(query.label): \(theirs[index])")
            XCTAssertEqual(Double(ours[index]), Double(theirs[index]), "\(query.label): \(ours[index])")
            compared += 1
        }
        XCTAssertEqual(compared, Self.regexPatterns.count * Self.regexBodies.count)
    }

    /// Each URL's probe_success ("0", "1", or what came instead), fetched in order by one
    /// Python process in `namespace`. What is compared is the answer, not how soon it came:
    /// a regular expression is matched to its end whatever the module's timeout (Go's regexp
    /// cannot be stopped either), and under ThreadSanitizer on a loaded machine `a{1000}$`
    /// over 4 KiB took longer than 10 s, so each answer is waited for up to 120 s.
    private func probeSuccesses(_ urls: [String], in namespace: Namespace) throws -> [String] {
        let script = """
            import sys, urllib.request
            for url in sys.argv[1:]:
                try:
                    with urllib.request.urlopen(url, timeout=120) as reply:
                        lines = reply.read().decode("utf-8", "replace").splitlines()
                    found = [line.split()[-1] for line in lines if line.startswith("probe_success ")]
                    print(found[0] if found else "no probe_success")
                except Exception as error:
                    print("error: %s" % error)
            """
        let result = try namespace.exec(["python3", "-c", script] + urls, timeout: 900)
        guard result.status == 0 else { throw HarnessError("probe client failed: \(result)") }
        return String(decoding: result.standardOutput, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

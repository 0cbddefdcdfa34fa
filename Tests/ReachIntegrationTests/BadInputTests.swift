#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// Bad input, end to end: exactly one `reach: ...` line on stderr, nothing on stdout, exit 64,
/// never a trap. Needs no root. As root each case runs in an empty network namespace
/// (`unshare --net`), so even a reach that wrongly tried to resolve a name could reach no server.
final class BadInputTests: XCTestCase {
    /// 254 characters in labels of 50.
    static let longName = Array(repeating: String(repeating: "a", count: 50), count: 5).joined(separator: ".")
    static let longLabel = String(repeating: "b", count: 64) + ".example"

    /// (arguments, a fragment the one error line must contain)
    static let cases: [(arguments: [[UInt8]], mentions: String)] = [
        (words("addr", "999.1.1.1"), "999.1.1.1"),
        (words("addr", "1.2.3"), "1.2.3"),
        (words("addr", "::g"), "::g"),
        (words("addr", "fe80::1%nosuchif"), "nosuchif"),
        (words("addr", "1.2.3.4%lo"), "1.2.3.4"),
        (words("addr", ""), ""),
        (words("addr"), ""),
        (words("host", ""), ""),
        (words("host"), ""),
        (words("host", longName), "253"),
        (words("host", longLabel), "63"),
        (words("host", "db internal"), "space"),
        (words("host", " "), "space"),
        (words("host", "db\tinternal"), "control"),
        (words("host", "db\u{1}internal"), "control"),
        (words("host", "db\u{7f}internal"), "control"),
        (words("host", "db\ninternal"), "control"),
        ([Array("host".utf8), [0x64, 0x62, 0xff, 0xfe, 0x2e, 0x74]], "UTF-8"),       // raw bytes, not UTF-8
        ([Array("host".utf8), [0xc3, 0x28]], "UTF-8"),                               // a broken two-byte sequence
        ([Array("addr".utf8), [0x31, 0x2e, 0x32, 0x2e, 0x33, 0x2e, 0xff]], ""),
        (words("host", "a..b"), "empty label"),
        (words("--bogus"), "bogus"),
        (words("status", "--bogus"), "bogus"),
        (words("addr", "127.0.0.1", "--frobnicate"), "frobnicate"),
        (words("status", "-x"), "-x"),
        (words("frobnicate"), "frobnicate"),
        (words("status", "extra"), "extra"),
        (words("help", "nonsense"), "nonsense"),
        (words("help", "status", "extra"), "extra"),
        (words("addr", "127.0.0.1", "127.0.0.2"), "127.0.0.2"),
        (words("host", "198.18.0.1", "--timeout", "abc"), "abc"),
        (words("host", "198.18.0.1", "--timeout", "-1"), "'-1' is not a duration"),
        (words("host", "198.18.0.1", "--timeout", "--json"), "'--json' is not a duration"),
        (words("host", "198.18.0.1", "--timeout", "0"), "0"),
        (words("host", "198.18.0.1", "--timeout", "5x"), "5x"),
        (words("host", "198.18.0.1", "--timeout"), "timeout"),
        (words("host", "198.18.0.1", "-4", "-6"), ""),
        (words("addr", "-6", "1.2.3.4"), "1.2.3.4"),
        (words("addr", "-4", "::1"), "::1"),
        (words("addr", "-4", "-6", "127.0.0.1"), "-4 and -6"),
        (words("watch", "--settle", "soon"), "soon"),
        (words("watch", "--timeout", "0"), "timeout"),
        (words("watch", "--timeout", "-1s"), "--timeout: '-1s' is not a duration"),
        (words("watch", "--settle", "-1"), "--settle: '-1' is not a duration"),
        (words("watch", "--resolve-interval", "-5"), "--resolve-interval: '-5' is not a duration"),
        (words("watch", "--count", "-1"), "--count must be at least 1: '-1'"),
        (words("watch", "--until", "up"), "up"),
        (words("watch", "--count", "0"), "count"),
        (words("watch", "--count", "x"), "x"),
        (words("watch", "--interface", "a/b"), "a/b"),
        (words("watch", "--interface", "sixteen-chars-xx"), "sixteen-chars-xx"),
        (words("watch", "--resolve-interval", "0"), "resolve-interval"),
        (words("watch", "-4", "2001:db8::1"), "2001:db8::1"),
        (words("watch", "-4", "-6", "db.test"), ""),
        (words("watch", "db internal"), "space"),
        (words("watch", "fe80::1%nosuchif"), "nosuchif"),
        (words("watch", "198.18.0.1", "extra"), "extra"),
        (words("status", "--probe", "icmp:"), "icmp:"),
        (words("status", "--probe", "tcp:host"), "tcp:host"),
        (words("status", "--probe", "tcp:host:99999"), "99999"),
        (words("status", "--probe", "ftp://x"), "ftp://x"),
        (words("status", "--probe", "https://x/"), "https://x/"),
        (words("status", "--probe", "http://"), "http://"),
        (words("status", "--probe", "tcp:[2001:db8::1:443"), "2001:db8::1"),
        (words("status", "--probe", "tcp:2001:db8::1:443"), "2001:db8::1"),
        (words("status", "--probe", "icmp:db internal"), "db internal"),
        (words("status", "--probe", "icmp:198.18.1.2", "--probe-timeout", "0"), "probe-timeout"),
        (words("status", "--probe", "icmp:198.18.1.2", "--probe-timeout", "soon"), "soon"),
        (words("status", "--probe"), "probe"),
        (words("watch", "--probe", "ftp://x"), "ftp://x"),
        (words("watch", "--probe", "tcp:host:0"), "tcp:host:0"),
        (words("watch", "--probe", "icmp:198.18.1.2", "--probe-interval", "0"), "probe-interval"),
        (words("watch", "--probe", "icmp:198.18.1.2", "--probe-interval", "soon"), "soon"),
    ]

    private static func words(_ words: String...) -> [[UInt8]] { words.map { Array($0.utf8) } }

    func testEveryBadInputIsOneLineOnStderrAndExit64() throws {
        XCTAssertEqual(Self.longName.utf8.count, 254)
        let isolate = geteuid() == 0
        for testCase in Self.cases {
            let arguments = testCase.arguments
            let shown = arguments.map { String(decoding: $0, as: UTF8.self).debugDescription }.joined(separator: " ")
            let result: CommandResult
            if isolate {
                try ReachBinary.requireBuilt()
                let sandbox = ["unshare", "--net", "--", ReachBinary.path].map { Array($0.utf8) }
                result = try Subprocess.run(sandbox + arguments)
            } else {
                result = try ReachBinary.run(bytes: arguments)
            }
            XCTAssertEqual(result.status, 64, "\(shown): exit status\n\(result)")
            XCTAssertEqual(result.stdout, "", "\(shown): nothing on stdout\n\(result)")
            XCTAssertEqual(result.stderrLines.count, 1, "\(shown): one line on stderr\n\(result)")
            XCTAssertTrue(result.stderr.hasPrefix("reach: "), "\(shown): the line starts 'reach: '\n\(result)")
            XCTAssertTrue(result.stderr.hasSuffix("\n"), "\(shown): the line ends\n\(result)")
            XCTAssertFalse(result.stderr.contains("Usage:") || result.stderr.contains("Error:"), "\(shown): no parser banner\n\(result)")
            if !testCase.mentions.isEmpty {
                XCTAssertTrue(result.stderr.contains(testCase.mentions), "\(shown): says what is wrong (\(testCase.mentions))\n\(result)")
            }
            XCTAssertLessThan(result.duration, 2, "\(shown): answered at once\n\(result)")
        }
    }

    /// Help and version are not errors: stdout, exit 0, nothing on stderr.
    func testHelpAndVersionAreCleanExits() throws {
        for arguments in [["--help"], ["--version"], ["status", "--help"], ["help", "addr"]] {
            let result = try ReachBinary.run(arguments)
            XCTAssertEqual(result.status, 0, "\(result)")
            XCTAssertEqual(result.stderr, "", "\(result)")
            XCTAssertFalse(result.stdout.isEmpty, "\(result)")
        }
        let version = try ReachBinary.run(["--version"])
        XCTAssertTrue(version.stdout.hasPrefix("reach "), "\(version)")
    }
}

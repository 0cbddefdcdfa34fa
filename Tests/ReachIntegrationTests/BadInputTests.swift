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
    /// A 100 KB argument: the error line quotes at most 80 characters of it.
    static let hugeWord = String(repeating: "x", count: 100_000)

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
        (words("198.18.1.2"), "for an address, 'reach addr 198.18.1.2' or 'reach ping 198.18.1.2'"),
        (words("db.example"), "for a host name, 'reach host db.example'"),
        (words("ping", "-g", "198.18.1.0/30"), "fping's -g is '--generate'"),
        (words("ping", "-l", "198.18.1.2", "198.18.1.3"), "fping's -l is '--loop'"),
        (words("status", "extra"), "extra"),
        (words("help", "nonsense"), "nonsense"),
        (words("help", "status", "extra"), "extra"),
        (words("addr", "127.0.0.1", "127.0.0.2", "127.0.0.x"), "127.0.0.x"),
        (words("host", "localhost", "db internal"), "space"),
        (words("addr", "127.0.0.1", "--targets-from", "/nonexistent/list"), "No such file"),
        (words("addr", "--targets-from", "/dev/null"), "no targets"),
        (words("addr", "--targets-from", "-", "--targets-from", "-"), "standard input can be read only once"),
        (words("host", "--targets-from", "/dev/null"), "no targets"),
        (words("host", "--any"), "no target given"),
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
        (words("status", "--expect", "success"), "--expect is for an http:// probe"),
        (words("status", "--expect", "success", "--probe", "tcp:198.18.0.2:80"), "--expect is for an http:// probe"),
        (words("status", "--probe-timeout", "never"), "--probe-timeout: 'never' is not a duration"),
        (words("watch", "--settle", "soon"), "soon"),
        (words("watch", "--timeout", "0"), "timeout"),
        (words("watch", "--timeout", "-1s"), "--timeout: '-1s' is not a duration"),
        (words("watch", "--settle", "-1"), "--settle: '-1' is not a duration"),
        (words("watch", "--resolve-interval", "-5"), "--resolve-interval: '-5' is not a duration"),
        (words("watch", "--count", "-1"), "--count must be at least 1: '-1'"),
        (words("watch", "--until", "up"), "up"),
        (words("watch", "--count", "0"), "count"),
        (words("watch", "localhost", "--textfile", "/tmp/reach.prom"), "--textfile writes the internet's state: give no target"),
        (words("watch", "--textfile", ""), "--textfile: '' is not a file path"),
        (words("watch", "--textfile", "/tmp/dir/"), "--textfile: '/tmp/dir/' is not a file path"),
        (words("watch", "--count", "x"), "x"),
        (words("watch", "--interface", "a/b"), "a/b"),
        (words("watch", "--interface", "sixteen-chars-xx"), "sixteen-chars-xx"),
        (words("watch", "--interface", "nosuchif", "--timeout", "1"), "--interface: unknown interface 'nosuchif'"),
        (words("watch", "--resolve-interval", "0"), "resolve-interval"),
        (words("watch", "-4", "2001:db8::1"), "2001:db8::1"),
        (words("watch", "-4", "-6", "db.test"), ""),
        (words("watch", "db internal"), "space"),
        (words("watch", "fe80::1%nosuchif"), "nosuchif"),
        (words("watch", "198.18.0.1", "bad name"), "space"),
        (words("watch", "--probe", "icmp:198.18.0.1", "198.18.0.1", "198.18.0.2"), "--probe watches one target"),
        (words("watch", "--targets-from", "/dev/null"), "no targets"),
        (words("watch", "--until", ""), "neither reachable nor unreachable"),
        (words("watch", "--interface", hugeWord), "invalid interface name"),
        ([Array("watch".utf8), Array("--interface".utf8), [0x65, 0x74, 0x68, 0xff]], "invalid interface name"),
        (words("watch", "--bogus"), "bogus"),
        // Overlong and odd arguments: one line whatever their length.
        (words("host", hugeWord), "100000 characters"),
        (words("addr", hugeWord), "..."),
        (words("host", "db\u{1b}[2Jinternal"), "control"),
        (words("host", "."), "empty label"),
        (words("addr", "1.2.3.4/24"), "1.2.3.4/24"),
        (words("addr", "::ffff:1.2.3.4.5"), "::ffff:1.2.3.4.5"),
        // status --probe: every malformed form, and the options that go with it.
        (words("status", "--probe", ""), "is not icmp:HOST, tcp:HOST:PORT or http://HOST[:PORT]/PATH"),
        (words("status", "--probe", "icmp:"), "names no host"),
        (words("status", "--probe", "tcp:198.18.0.2"), "names no port"),
        (words("status", "--probe", "tcp:198.18.0.2:"), "names no port"),
        (words("status", "--probe", "tcp:198.18.0.2:0"), "not 1-65535"),
        (words("status", "--probe", "tcp:198.18.0.2:65536"), "not 1-65535"),
        (words("status", "--probe", "tcp:198.18.0.2:http"), "not 1-65535"),
        (words("status", "--probe", "tcp:2001:db8::2:443"), "invalid host"),
        (words("status", "--probe", "https://198.18.0.2/"), "https cannot see a captive portal"),
        (words("status", "--probe", "ftp://198.18.0.2/"), "is not icmp:HOST"),
        (words("status", "--probe", "http://a b/"), "invalid host"),
        (words("status", "--probe", "http://[2001:db8::2/"), "invalid host"),
        (words("status", "--probe", "http://[db.test]/"), "invalid host"),
        (words("status", "--probe", "http://:80/"), "names no host"),
        (words("status", "--probe", "http://" + longName + "/"), "invalid host"),
        ([Array("status".utf8), Array("--probe".utf8), Array("icmp:db".utf8) + [0xff]], "invalid host"),
        (words("status", "--probe", "http://198.18.0.2/", "--probe-timeout", "0"), "--probe-timeout must be more than 0"),
        (words("status", "--probe", "http://198.18.0.2/", "--probe-timeout", "2d"), "'2d' is not a duration"),
        (words("status", "--probe", "icmp:198.18.0.2", "--probe-timeout", "-1"), "'-1' is not a duration"),
        (words("status", "--probe"), "--probe"),
        (words("status", "--probe", "icmp:198.18.0.2", "--expect"), "--expect"),
        // ping: iputils' options, each out of range or malformed.
        (words("ping"), "no target given"),
        (words("ping", "198.18.0.2", "bad name"), "space"),
        (words("ping", "--generate", "198.18.0.0/15"), "more than 65536 host addresses"),
        (words("ping", "--generate", "2001:db8::/111"), "more than 65536 host addresses"),
        (words("ping", "--generate", "198.18.0.0"), "is not an address prefix"),
        (words("ping", "--targets-from", "/dev/null"), "no targets"),
        (words("ping", "-f", "198.18.0.2", "198.18.0.3"), "-f is for one host"),
        (words("ping", "--period", "0", "198.18.0.2", "198.18.0.3"), "--period must be more than 0"),
        (words("ping", "--each-rtt", "-c", "9223372036854775807", "198.18.0.2", "198.18.0.3"), "-c times the targets"),
        ([Array("ping".utf8), Array("198.18.0.2".utf8), [0x64, 0x62, 0xc3, 0x28]], "UTF-8"),
        (words("ping", "-c", "0", "198.18.0.2"), "-c: '0' is not a count from 1 to 9223372036854775807"),
        (words("ping", "-c", "-1", "198.18.0.2"), "-c: '-1'"),
        (words("ping", "-c", "x", "198.18.0.2"), "-c: 'x'"),
        (words("ping", "-c", "99999999999999999999", "198.18.0.2"), "-c: '99999999999999999999'"),
        (words("ping", "-i", "-1", "198.18.0.2"), "-i: '-1' is not a number of seconds"),
        (words("ping", "-i", "1e3", "198.18.0.2"), "-i: '1e3'"),
        // Past the limits: the line says them.
        (words("ping", "-i", "86401", "198.18.0.2"), "-i: '86401' is not a number of seconds (0-86400; such as 1 or 0.2)"),
        (words("ping", "-W", "99999", "198.18.0.2"), "-W: '99999' is not a number of seconds (more than 0, at most 86400;"),
        (words("ping", "--period", "100000", "198.18.0.2", "198.18.0.3"), "--period: '100000' is not a number of seconds (more than"),
        (words("ping", "-w", "86401", "198.18.0.2"), "-w: '86401' is not a whole number of seconds (0-86400)"),
        (words("host", "198.18.0.1", "--timeout", "0.0001"), "--timeout must be more than 0, at least 1ms: '0.0001'"),
        (words("watch", "--timeout", "0.0004"), "--timeout must be more than 0, at least 1ms"),
        (words("ping", "-i", "nan", "198.18.0.2"), "-i: 'nan'"),
        (words("ping", "-W", "0", "198.18.0.2"), "-W must be more than 0"),
        (words("ping", "-W", "-5", "198.18.0.2"), "-W: '-5'"),
        (words("ping", "-w", "-1", "198.18.0.2"), "-w: '-1' is not a whole number of seconds"),
        (words("ping", "-w", "inf", "198.18.0.2"), "-w: 'inf'"),
        (words("ping", "-s", "-1", "198.18.0.2"), "-s: '-1' is not a data size"),
        (words("ping", "-s", "70000", "198.18.0.2"), "-s: '70000'"),
        (words("ping", "-s", "65508", "198.18.0.2"), "65508 bytes do not fit an IPv4 datagram"),
        (words("ping", "-s", "65528", "2001:db8::2"), "65527 over IPv6"),
        (words("ping", "-t", "0", "198.18.0.2"), "-t: '0' is not a ttl of 1 to 255"),
        (words("ping", "-t", "256", "198.18.0.2"), "-t: '256'"),
        (words("ping", "-I", "", "198.18.0.2"), "-I: unknown interface ''"),
        (words("ping", "-I", "nosuchif0", "198.18.0.2"), "nosuchif0"),
        (words("ping", "-4", "-6", "198.18.0.2"), "-4 and -6 cannot be combined"),
        (words("ping", "-4", "2001:db8::2"), "2001:db8::2 is not an IPv4 address"),
        (words("ping", "-6", "198.18.0.2"), "198.18.0.2 is not an IPv6 address"),
        (words("ping", "db internal"), "space"),
        (words("ping", ""), "empty host name"),
        (words("ping", longName), "253"),
        (words("ping", "fe80::1%nosuchif"), "nosuchif"),
        ([Array("ping".utf8), [0x64, 0x62, 0xc3, 0x28]], "UTF-8"),
        (words("ping", "--bogus", "198.18.0.2"), "bogus"),
        (words("ping", "-x", "198.18.0.2"), "-x"),
        (words("ping", "--count", "3", "198.18.0.2"), "--count"),
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
        (words("watch", "--probe", "ftp://x"), "ftp://x"),
        (words("watch", "127.0.0.1", "-4", "-6"), "-4 and -6 cannot be combined for an address"),
        (words("watch", "--probe", "tcp:host:0"), "tcp:host:0"),
        (words("watch", "--probe", "icmp:198.18.1.2", "--probe-interval", "0"), "probe-interval"),
        (words("watch", "--probe", "icmp:198.18.1.2", "--probe-interval", "soon"), "soon"),
        (words("watch", "--probe", "icmp:198.18.1.2", "--probe-interval", "-1s"), "--probe-interval: '-1s' is not a duration"),
    ]

    private static func words(_ words: String...) -> [[UInt8]] { words.map { Array($0.utf8) } }

    func testEveryBadInputIsOneLineOnStderrAndExit64() throws {
        XCTAssertEqual(Self.longName.utf8.count, 254)
        // Every subcommand and option of the hostile-input table (docs/HARDENING.md), at least 60 cases.
        XCTAssertGreaterThanOrEqual(Self.cases.count, 60)
        for command in ["status", "host", "addr", "watch", "ping"] {
            XCTAssertTrue(Self.cases.contains { $0.arguments.first == Array(command.utf8) }, "no case for \(command)")
        }
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
            XCTAssertLessThan(result.stderr.utf8.count, 1024, "\(shown): a line of bounded length\n\(result)")
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

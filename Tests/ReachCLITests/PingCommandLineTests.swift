import ReachCommandLine
import XCTest

@testable import ReachCLI

/// `reach ping`'s options read as iputils reads its own (getopt(3)): joined values, groups
/// of flags that may end in a value option, options after the host.
final class PingCommandLineTests: XCTestCase {
    private func read(_ words: [String]) throws -> PingOptions {
        var options = PingOptions()
        XCTAssertEqual(try PingOptions.commandLine.parse(words[...], into: &options), .run, "\(words)")
        return options
    }

    /// Reads `words` that hold a wrong value: throws what the reader says of it.
    private func problem(_ words: [String]) throws {
        var options = PingOptions()
        _ = try PingOptions.commandLine.parse(words[...], into: &options)
    }

    func testIputilsForms() throws {
        let cases: [([String], PingOptions)] = [
            (["127.0.0.1"], PingOptions(hosts: ["127.0.0.1"])),
            (["-c", "1", "127.0.0.1"], PingOptions(hosts: ["127.0.0.1"], count: "1")),
            (["-c1", "-q", "::1"], PingOptions(hosts: ["::1"], count: "1", quiet: true)),
            (
                ["127.0.0.1", "-c", "3", "-i", "0.2", "-W", "1"],
                PingOptions(hosts: ["127.0.0.1"], count: "3", interval: .milliseconds(200), timeout: .seconds(1))
            ),
            (["-fq", "-c10000", "127.0.0.1"], PingOptions(hosts: ["127.0.0.1"], count: "10000", quiet: true, flood: true)),
            (["-qc1", "127.0.0.1"], PingOptions(hosts: ["127.0.0.1"], count: "1", quiet: true)),
            (["-nqc", "3", "127.0.0.1"], PingOptions(hosts: ["127.0.0.1"], count: "3", quiet: true, numeric: true)),
            (["-qI", "lo", "::1"], PingOptions(hosts: ["::1"], interface: "lo", quiet: true)),
            (["-Ilo", "localhost"], PingOptions(hosts: ["localhost"], interface: "lo")),
            // The word after a value option is its value when the option parses unconditionally.
            (["-c", "-1", "127.0.0.1"], PingOptions(hosts: ["127.0.0.1"], count: "-1")),
            (["-c", "-qc1", "127.0.0.1"], PingOptions(hosts: ["127.0.0.1"], count: "-qc1")),
            (["-c", "", "127.0.0.1"], PingOptions(hosts: ["127.0.0.1"], count: "")),
            (["-c", "1", "-c", "2", "127.0.0.1"], PingOptions(hosts: ["127.0.0.1"], count: "2")),
            (["-46", "127.0.0.1"], PingOptions(hosts: ["127.0.0.1"], ipv4: true, ipv6: true)),
            (["-pff", "-Mwant", "::1"], PingOptions(hosts: ["::1"], pattern: [0xff], mtuDiscovery: .want)),
            (["--", "-qc1"], PingOptions(hosts: ["-qc1"])),
            (
                ["--generate", "198.51.100.1", "198.51.100.9", "--period=0.5", "--alive", "--squiet", "1"],
                PingOptions(
                    hosts: ["198.51.100.9"], period: .milliseconds(500), alive: true, generate: "198.51.100.1", squiet: .seconds(1))
            ),
        ]
        for (words, expected) in cases {
            XCTAssertEqual(try read(words), expected, "\(words)")
        }
    }

    /// iputils -p: hex digits two at a time (an odd last one a byte of its own), 1 to 16 bytes.
    /// The documented bounds are taken, one past them refused with the range in the line.
    func testSecondsAtTheirBounds() throws {
        XCTAssertEqual(try read(["-i", "86400", "h"]).interval, .seconds(86_400))
        XCTAssertEqual(try read(["-i", "0", "h"]).interval, .zero)
        XCTAssertEqual(try read(["-W", "0.000001", "h"]).timeout, .nanoseconds(1000))
        XCTAssertThrowsError(try problem(["-i", "86400.001", "h"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "-i: '86400.001' is not a number of seconds (0-86400; such as 1 or 0.2)")
        }
        XCTAssertThrowsError(try problem(["--period", "100000", "h"])) { error in
            XCTAssertEqual(
                (error as? UsageError)?.message,
                "--period: '100000' is not a number of seconds (more than 0, at most 86400; such as 1 or 0.2)")
        }
        XCTAssertThrowsError(try problem(["-W", "0", "h"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "-W must be more than 0 seconds")
        }
        var options = PingOptions()
        (options.count, options.interval, options.timeout) = (String(Int.max), .seconds(86_400), .seconds(86_400))
        options.deadline = .seconds(86_400)
        let settings = try PingSettings(options)
        XCTAssertEqual(settings.configuration.count, .max)
        XCTAssertEqual(settings.configuration.deadline, .seconds(86_400))
    }

    func testPatternBytes() {
        XCTAssertEqual(PingSettings.pattern("ff"), [0xff])
        XCTAssertEqual(PingSettings.pattern("0a1B2"), [0x0a, 0x1b, 0x02])
        XCTAssertEqual(PingSettings.pattern(String(repeating: "7e", count: 16)), [UInt8](repeating: 0x7e, count: 16))
        for bad in ["", "xyz", "0x1f", "-1", "1 2", "é", String(repeating: "7e", count: 16) + "1"] {
            XCTAssertNil(PingSettings.pattern(bad), bad)
        }
    }
}

import XCTest

@testable import ReachCLI
@testable import ReachCommandLine

/// `reach`'s command line, read from the one declaration per command: every form
/// swift-argument-parser took before it was retired, help with the same words, and the
/// mistakes each said in one line.
final class ReachCommandTests: XCTestCase {
    private func invocation(_ words: [String], line: UInt = #line) -> ReachInvocation? {
        do {
            guard case .run(let invocation) = try ReachCommand.request(words) else {
                XCTFail("\(words): not a run", line: line)
                return nil
            }
            return invocation
        } catch {
            XCTFail("\(words): \(error.message)", line: line)
            return nil
        }
    }

    /// The command lines of the README and of scripts, each read to the options it means.
    func testEachFormReadsToItsOptions() {
        let cases: [([String], ReachInvocation)] = [
            ([], .status(StatusOptions())),
            (["status"], .status(StatusOptions())),
            (["--json"], .status(StatusOptions(output: OutputOptions(json: true)))),
            (["-q6"], .status(StatusOptions(path: PathOptions(ipv6: true), output: OutputOptions(quiet: true)))),
            (["status", "-4", "-4"], .status(StatusOptions(path: PathOptions(ipv4: true)))),
            (
                ["status", "--probe", "icmp:127.0.0.1", "--probe=tcp:[::1]:80", "--probe-timeout", "2s", "--reference", "::1"],
                .status(
                    StatusOptions(
                        references: ["::1"], probes: ProbeOptions(specs: ["icmp:127.0.0.1", "tcp:[::1]:80"], probeTimeout: .seconds(2))))
            ),
            (
                ["addr", "198.18.0.1", "--from", "198.18.0.2", "--oif=lo", "--mark", "0x10", "--uid", "-1", "::1"],
                .addr(
                    AddrOptions(
                        addresses: ["198.18.0.1", "::1"],
                        selectors: RouteSelectorOptions(source: "198.18.0.2", outputInterface: "lo", mark: "0x10", uid: "-1")))
            ),
            (["addr", "--", "-1", "--json"], .addr(AddrOptions(addresses: ["-1", "--json"]))),
            (["addr", "-"], .addr(AddrOptions(addresses: ["-"]))),
            (
                ["host", "--timeout", "-1", "a", "--json", "b", "--timeout=300ms", "--targets-from", "-", "--any"],
                .host(
                    HostOptions(
                        names: ["a", "b"], timeout: .milliseconds(300), targets: TargetListOptions(files: ["-"], any: true),
                        output: OutputOptions(json: true)))
            ),
            (
                ["watch", "db.internal", "--until", "reachable", "--count=3", "--settle", "2s", "--debug-receive-buffer", "512"],
                .watch(WatchOptions(targets: ["db.internal"], until: "reachable", settle: .seconds(2), count: 3, debugReceiveBuffer: 512))
            ),
            (["ping", "-qc1", "127.0.0.1"], .ping(PingOptions(hosts: ["127.0.0.1"], count: "1", quiet: true))),
        ]
        for (words, expected) in cases {
            XCTAssertEqual(invocation(words), expected, "\(words)")
        }
    }

    /// Every mistake: exit 64 and one line that names what is wrong, nothing on stdout.
    func testMistakesAreOneLineUsageErrors() {
        let cases: [([String], String)] = [
            (["nonsense"], "unknown command 'nonsense' (commands: status, host, addr, watch, ping, trace)"),
            (["stauts"], "unknown command 'stauts'; did you mean 'status'?"),
            (["pign", "::1"], "unknown command 'pign'; did you mean 'ping'? (commands: status, host, addr, watch, ping, trace)"),
            (["status", "x"], "status: unexpected argument 'x'"),
            (["--jsn"], "status: unknown option '--jsn'; did you mean '--json'?"),
            (["ping", "--jsn", "::1"], "ping: unknown option '--jsn'; did you mean '--json'?"),
            (["host", "--tiemout", "1", "a"], "host: unknown option '--tiemout'; did you mean '--timeout'?"),
            (["ping", "-x", "::1"], "ping: unknown option '-x' (see 'reach ping --help')"),
            (["ping", "-qx", "::1"], "ping: unknown option '-x' in '-qx'"),
            // fping's letters that reach does not read as fping: the long option that does the job.
            (["ping", "-g", "198.18.1.0/30"], "ping: unknown option '-g'; fping's -g is '--generate'"),
            (["ping", "-C", "3", "a", "b"], "ping: unknown option '-C'; fping's -C is '--each-rtt'"),
            (["ping", "-l", "a", "b"], "ping: unknown option '-l'; fping's -l is '--loop'"),
            (["ping", "-Q", "1", "a", "b"], "ping: unknown option '-Q'; fping's -Q is '--squiet'"),
            (["ping", "-e", "a", "b"], "ping: unknown option '-e'; fping's -e is '--elapsed'"),
            (["ping", "-a", "a", "b"], "ping: unknown option '-a'; fping's -a is '--alive'"),
            (["ping", "-u", "a", "b"], "ping: unknown option '-u'; fping's -u is '--unreachable'"),
            (["ping", "-qg", "x"], "ping: unknown option '-g' in '-qg'; fping's -g is '--generate'"),
            // A target where the command should be: the commands that take one.
            (["198.18.1.2"], "unknown command '198.18.1.2'; for an address, 'reach addr 198.18.1.2' or 'reach ping 198.18.1.2'"),
            (["2001:db8::1"], "unknown command '2001:db8::1'; for an address, 'reach addr 2001:db8::1' or 'reach ping 2001:db8::1'"),
            (["db.example"], "unknown command 'db.example'; for a host name, 'reach host db.example' or 'reach ping db.example'"),
            (["ping", "-c"], "ping: -c needs a value (-c <count>)"),
            (["host", "x", "--timeout"], "host: --timeout needs a value (--timeout <duration>)"),
            (["ping", "-I", "-q", "::1"], "ping: -I needs a value (-I <interface>), and '-q' is an option"),
            (["watch", "--count", "three"], "watch: --count <n>: 'three' is not a valid value"),
            (
                ["watch", "--debug-receive-buffer", "99999999999"],
                "watch: --debug-receive-buffer <bytes>: '99999999999' is not a valid value"
            ),
            (["status", "--json=1"], "status: --json takes no value, and '1' was given"),
            (["help", "nonsense"], "help: no command 'nonsense' (commands: status, host, addr, watch, ping, trace)"),
            (["help", "status", "host"], "help: no command 'host' under 'status'"),
            (["help", "-h", "frob"], "help: no command 'frob'"),
            (["status", "--bogus\u{1b}[2J"], "unknown option '--bogus\\x1b[2J'"),
            (["--generate-completion-script", "tcsh"], "no completion script for 'tcsh' (shells: bash, zsh, fish)"),
        ]
        for (words, expected) in cases {
            XCTAssertThrowsError(try ReachCommand.request(words), "\(words)") { error in
                let (status, message) = ExitStatus.of(error)
                XCTAssertEqual(status, .usage, "\(words)")
                XCTAssertTrue(message.contains(expected), "\(words): \(message)")
                XCTAssertFalse(message.contains("\n"), "\(words): \(message)")
            }
        }
    }

    /// Swapped neighbours are one edit, as in git's help.c: `pign` is near `ping`, and a
    /// swap is not cheaper than it should be (`ab` to `ba` is one edit, not zero).
    func testSuggestionCountsASwapAsOneEdit() {
        XCTAssertEqual(Suggestion.distance(Array("pign".utf8), Array("ping".utf8)), 1)
        XCTAssertEqual(Suggestion.distance(Array("ab".utf8), Array("ba".utf8)), 1)
        XCTAssertEqual(Suggestion.distance(Array("--jsn".utf8), Array("--json".utf8)), 1)
        XCTAssertEqual(Suggestion.distance(Array("kitten".utf8), Array("sitting".utf8)), 3)
        XCTAssertEqual(Suggestion.distance(Array("".utf8), Array("ping".utf8)), 4)
        XCTAssertEqual(Suggestion.nearest(to: "pign", among: ["status", "host", "addr", "watch", "ping"]), "ping")
        XCTAssertNil(Suggestion.nearest(to: "nonsense", among: ["status", "host", "addr", "watch", "ping"]))
    }

    /// Help says what swift-argument-parser's said, word for word (HelpGolden holds its
    /// output, captured before the parser was retired); `reach help help` too.
    func testHelpSaysWhatItSaidBefore() throws {
        for (forms, golden) in HelpGolden.cases {
            for arguments in forms {
                guard case .text(let text) = try ReachCommand.request(arguments) else { return XCTFail("\(arguments): not help") }
                XCTAssertEqual(words(of: text), words(of: golden), "\(arguments) printed:\n\(text)")
            }
        }
        guard case .text(let text) = try ReachCommand.request(["help", "help"]) else { return XCTFail("help help") }
        XCTAssertTrue(text.hasPrefix("OVERVIEW: Show subcommand help information.\n\nUSAGE: reach help [<subcommands> ...]"), text)
        for words in [["--version"], ["status", "--version"]] {
            guard case .text(let version) = try ReachCommand.request(words) else { return XCTFail("\(words)") }
            XCTAssertEqual(version, "reach \(ReachCommand.version)\n")
        }
        // -h inside a group of flags, and before a value, is help as well.
        for words in [["ping", "-qh"], ["host", "-h", "x"], ["status", "--probe-timeout", "1", "--help"]] {
            guard case .text(let help) = try ReachCommand.request(words) else { return XCTFail("\(words)") }
            XCTAssertTrue(help.contains("USAGE: reach \(words[0])"), "\(words)")
        }
    }

    /// Random command lines from every command's words: each is read or refused with one
    /// line, never a trap (seeded, so a failure repeats).
    func testRandomCommandLinesAreReadOrRefusedInOneLine() {
        var generator = SplitMix64(seed: 0x5eed_0001)
        for command in ReachCommand.names {
            guard let summary = ReachCommand.commands().first(where: { $0.about.name == command }) else {
                return XCTFail(command)
            }
            var vocabulary = ["127.0.0.1", "-1", "5", "", "-", "--", "-h", "é", "--x", "-q=1", "--json=", "x=y"]
            for option in summary.options {
                if let letter = option.letter { vocabulary.append("-" + String(UnicodeScalar(letter)) + "1") }
                if let long = option.long { vocabulary += ["--" + long, "--" + long + "=2"] }
            }
            var read = 0
            for _ in 0..<2_000 {
                let length = Int(generator.next() % 6)
                let words = [command] + (0..<length).map { _ in vocabulary[Int(generator.next() % UInt64(vocabulary.count))] }
                do {
                    _ = try ReachCommand.request(words)
                    read += 1
                } catch {
                    XCTAssertFalse(error.message.contains("\n"), "\(words)")
                    XCTAssertFalse(error.message.isEmpty, "\(words)")
                }
            }
            XCTAssertGreaterThan(read, 100, command)
        }
    }

    private func words(of text: String) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" })
    }
}

import ArgumentParser
import XCTest

@testable import ReachCLI
import ReachSystem

/// PingArguments reads `reach ping`'s plain command lines without ArgumentParser; whatever
/// it accepts must come out exactly as ArgumentParser would have parsed it.
final class PingArgumentsTests: XCTestCase {
    private func assertSameAsArgumentParser(_ words: [String], file: StaticString = #filePath, line: UInt = #line) {
        guard let fast = PingArguments.options(words[...]) else { return }
        do {
            let parsed = try PingCommand.parse(words)
            XCTAssertEqual(fast, parsed.options, "\(words)", file: file, line: line)
        } catch {
            XCTFail("PingArguments took \(words), ArgumentParser says: \(PingCommand.message(for: error))", file: file, line: line)
        }
    }

    /// The forms users type, iputils' own test invocations among them: taken on the fast path.
    func testPlainFormsAreReadAsArgumentParserReadsThem() throws {
        let accepted: [[String]] = [
            ["127.0.0.1"],
            ["-c", "1", "127.0.0.1"],
            ["-c1", "-q", "::1"],
            ["127.0.0.1", "-c", "3", "-i", "0.2", "-W", "1"],
            ["-f", "-q", "-c", "10000", "127.0.0.1"],
            ["-fq", "-c10000", "127.0.0.1"],
            ["-4", "-n", "-D", "-O", "-w", "5", "-s", "100", "-t", "1", "198.51.100.1"],
            ["-6", "-I", "lo", "fe80::1%lo"],
            ["-Ilo", "localhost"],
            ["-I", "127.0.0.1", "--json", "localhost"],
            ["-c", "-1", "127.0.0.1"],
            ["-i", "-0.5", "127.0.0.1"],
            ["-c", "0", "127.0.0.1"],
            ["-W", "soon", "127.0.0.1"],
            ["-46", "127.0.0.1"],
            ["-c", "", "127.0.0.1"],
            ["db.internal", "-qn"],
            ["127.0.0.1", "::1", "-c", "3", "-q"], ["-c1", "--period", "0.5", "--alive", "198.51.100.1", "198.51.100.2"],
            ["--each-rtt", "--unreachable", "--generate", "198.51.100.0/24"], ["--targets-from", "list.txt", "-i", "0.001"],
            ["-p", "ff", "-M", "do", "127.0.0.1"], ["-pff", "-Mwant", "::1"],
            ["--loop", "--squiet", "1", "--elapsed", "--stats", "198.51.100.1", "198.51.100.2"],
            ["--generate", "198.51.100.1", "198.51.100.9", "-c", "1"],
        ]
        for words in accepted {
            XCTAssertNotNil(PingArguments.options(words[...]), "\(words) should not need ArgumentParser")
            assertSameAsArgumentParser(words)
        }
    }

    /// Help, mistakes and anything unusual go to ArgumentParser, which says what is wrong.
    func testAnythingElseIsLeftToArgumentParser() {
        let declined: [[String]] = [
            ["-h"], ["--help"], ["127.0.0.1", "-h"], ["-c", "-h", "127.0.0.1"], ["--version"],
            ["-c"], ["-c", "1", "-c", "2", "127.0.0.1"], ["--targets-from", "-"], ["--generate"],
            ["-q", "-q", "127.0.0.1"], ["-qq", "127.0.0.1"], ["-x", "127.0.0.1"], ["-qx", "127.0.0.1"],
            ["--", "127.0.0.1"], ["-", "127.0.0.1"], ["", "127.0.0.1"], ["--count", "1", "127.0.0.1"],
            ["-qc1", "127.0.0.1"], ["-c-1", "127.0.0.1"], ["-c=1", "127.0.0.1"], ["-I", "-q", "127.0.0.1"],
            ["-I", "", "127.0.0.1"], ["--json", "--json", "127.0.0.1"], ["--json=1", "127.0.0.1"],
            // An option-like value other than a negative number: ArgumentParser reads it for help too.
            ["-c", "--json", "127.0.0.1"], ["-c", "-qh", "127.0.0.1"],
        ]
        for words in declined {
            XCTAssertNil(PingArguments.options(words[...]), "\(words)")
        }
    }

    /// Random command lines from the words that matter: whenever the fast path takes one,
    /// ArgumentParser reads it the same way (a fixed seed, so a failure repeats).
    func testRandomCommandLinesAgreeWithArgumentParser() {
        let words = [
            "127.0.0.1", "::1", "db.internal", "-c", "-c5", "5", "-1", "0.2", "-i", "-i0", "-W", "-w", "-w3",
            "-s", "-t", "-t1", "-I", "-Ilo", "lo", "-4", "-6", "-q", "-n", "-D", "-O", "-f", "-fq", "-qn",
            "-qc", "-qc1", "-nqc3", "-qI", "-qcx", "--json", "-h", "--help", "--", "-", "", "-x", "--count",
            "-c=2", "é", "-é", "--period", "--alive", "--generate", "198.51.100.0/30", "--targets-from",
        ]
        // Every declared option too, so that one added later is exercised without a word here.
        let declared = PingOptions.commandLine.options.flatMap { option in
            [option.letter.map { "-" + String(UnicodeScalar($0)) }, option.long.map { "--" + $0 }].compactMap { $0 }
        }
        let vocabulary = words + declared.filter { !words.contains($0) }
        var generator = SplitMix64(seed: 0x5eed_7f73)
        var taken = 0
        for _ in 0..<10_000 {
            let length = Int(generator.next() % 6) + 1
            let line = (0..<length).map { _ in vocabulary[Int(generator.next() % UInt64(vocabulary.count))] }
            if PingArguments.options(line[...]) != nil { taken += 1 }
            assertSameAsArgumentParser(line)
            // What ReachMain hands on: the words with their flag groups split.
            assertSameAsArgumentParser(PingArguments.splittingFlagGroups(line[...]))
        }
        XCTAssertGreaterThan(taken, 500, "the vocabulary should exercise the fast path")
    }

    /// getopt's groups that end in a value option, as `ping -qc1 HOST` in scripts: split in
    /// two before either reader sees them; anything that is not such a group stays whole.
    func testFlagGroupsEndingInAValueOptionAreSplit() throws {
        let cases: [([String], [String])] = [
            (["-qc1", "127.0.0.1"], ["-q", "-c1", "127.0.0.1"]),
            (["-nqc", "3", "127.0.0.1"], ["-nq", "-c", "3", "127.0.0.1"]),
            (["-fqc10000", "127.0.0.1"], ["-fq", "-c10000", "127.0.0.1"]),
            (["-qI", "lo", "::1"], ["-q", "-I", "lo", "::1"]),
            // The word after a value option is its value, whatever it looks like.
            (["-c", "-qc1", "127.0.0.1"], ["-c", "-qc1", "127.0.0.1"]),
            (["-qw", "-nc1", "127.0.0.1"], ["-q", "-w", "-nc1", "127.0.0.1"]),
            // Not a group of flags then a value option: left for the readers to judge.
            (["-c5", "-qn", "-xc1", "--count", "-"], ["-c5", "-qn", "-xc1", "--count", "-"]),
            (["--", "-qc1"], ["--", "-qc1"]),
        ]
        for (words, expected) in cases {
            XCTAssertEqual(PingArguments.splittingFlagGroups(words[...]), expected, "\(words)")
        }
        let split = PingArguments.splittingFlagGroups(["-qc1", "127.0.0.1"])
        let options = try XCTUnwrap(PingArguments.options(split[...]))
        XCTAssertEqual(options, try PingCommand.parse(["-q", "-c", "1", "127.0.0.1"]).options)
    }

    /// Every declared flag letter is a flag to the splitter and to the reader, and every
    /// declared value letter ends a group the splitter splits before it.
    func testTheSplittersFlagsAreTheReadersFlags() {
        for option in PingOptions.commandLine.options {
            guard let letter = option.letter.map({ String(UnicodeScalar($0)) }) else { continue }
            switch option.setting {
            case .flag:
                XCTAssertNotNil(PingArguments.options(["-\(letter)", "127.0.0.1"]), "-\(letter)")
                XCTAssertEqual(PingArguments.splittingFlagGroups(["-\(letter)c1"]), ["-\(letter)", "-c1"])
            case .value:
                XCTAssertEqual(PingArguments.splittingFlagGroups(["-q\(letter)1"]), ["-q", "-\(letter)1"])
            }
        }
    }

    /// iputils -p: hex digits two at a time (an odd last one a byte of its own), 1 to 16 bytes.
    func testPatternBytes() {
        XCTAssertEqual(PingSettings.pattern("ff"), [0xff])
        XCTAssertEqual(PingSettings.pattern("0a1B2"), [0x0a, 0x1b, 0x02])
        XCTAssertEqual(PingSettings.pattern(String(repeating: "7e", count: 16)), [UInt8](repeating: 0x7e, count: 16))
        for bad in ["", "xyz", "0x1f", "-1", "1 2", "é", String(repeating: "7e", count: 16) + "1"] {
            XCTAssertNil(PingSettings.pattern(bad), bad)
        }
    }
}

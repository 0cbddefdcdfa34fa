import ArgumentParser
import XCTest

@testable import ReachCLI

/// ReachArguments reads plain command lines without ArgumentParser; whatever it takes must
/// come out exactly as ArgumentParser (ReachCommand.parseAsRoot, as ReachMain calls it)
/// would have parsed it, options struct for options struct.
final class ReachArgumentsTests: XCTestCase {
    /// The command lines of the README and of scripts: taken without ArgumentParser.
    func testCommonFormsTakeTheFastRoad() {
        let accepted: [[String]] = [
            [], ["status"], ["status", "-4"], ["status", "--json"], ["status", "-q6"], ["status", "--no-cellular", "--flags"],
            ["status", "--no-expensive", "-4"],
            ["status", "--probe", "icmp:127.0.0.1", "--probe=tcp:[::1]:80", "--probe-timeout", "2s"],
            ["status", "--probe", "http://127.0.0.1:8080/health", "--expect", "ok"],
            ["addr", "127.0.0.1"], ["addr", "-6", "fe80::1%lo", "--json"], ["addr", "::1", "-q"],
            ["addr", "198.18.0.1", "--from", "198.18.0.2", "--oif=lo", "--mark", "0x10", "--uid", "1000"],
            ["host", "localhost"], ["host", "--timeout", "1.5s", "db.internal", "-4"], ["host", "--timeout=300ms", "localhost"],
            ["watch"], ["watch", "--until", "reachable", "--timeout", "30"], ["watch", "db.internal", "--json", "--count", "3"],
            ["watch", "-4", "--settle=2s", "--interface", "eth0"], ["watch", "--probe", "icmp:10.0.0.1", "--probe-interval", "10s"],
            ["watch", "--textfile", "/var/lib/node_exporter/textfile/reach.prom", "-q"],
            ["ping", "-c", "1", "127.0.0.1"],
            ["addr", "127.0.0.1", "::1", "--any"], ["host", "a", "--json", "b", "c"], ["host", "--targets-from", "list.txt"],
        ]
        for words in accepted {
            XCTAssertNotNil(ReachArguments.invocation(words), "\(words) should not need ArgumentParser")
            assertSameAsArgumentParser(words, context: "")
        }
    }

    /// Help, completions, the version, mistakes and unusual forms go to ArgumentParser.
    func testAnythingElseIsLeftToArgumentParser() {
        let declined: [[String]] = [
            ["help"], ["help", "status"], ["--help"], ["-h"], ["--version"], ["status", "--help"], ["host", "-h", "x"],
            ["--generate-completion-script", "bash"], ["-4"], ["status", "x"], ["status", "--bogus"], ["status", "-4", "-4"],
            ["status", "--json=1"], ["status", "--probe"], ["status", "--probe", "--json"], ["status", "--probe="],
            ["status", "--probe-timeout", "--help"], ["status", "--"], ["status", "-"], ["status", ""],
            ["addr", "--", "::1"], ["host", "--timeout"], ["addr", "--targets-from", "-"], ["host", "--targets-from"],
            ["host", "a", "--timeout", "1", "--timeout", "2"],
            ["watch", "--count", "three"], ["watch", "--count="], ["watch", "--until", "-x"],
            ["watch", "--debug-receive-buffer", "99999999999"], ["frob"], ["Status"],
        ]
        for words in declined {
            XCTAssertNil(ReachArguments.invocation(words), "\(words)")
        }
    }

    /// Random command lines, valid and not, for each subcommand: whenever the fast reader
    /// takes one, ArgumentParser reads it the same way. Seeded, so a failure repeats (the
    /// message gives the seed and the line). ArgumentParser is asked only about the lines the
    /// fast reader takes (a parse costs it about 6 ms in a debug build): most lines carry a
    /// mistake, which the fast reader must decline.
    func testRandomCommandLinesAgreeWithArgumentParser() {
        let lines = 20_000
        let subcommands: [(String, UInt64, CommandShape)] = [
            ("status", 0x5eed_0001, CommandShape(StatusOptions.commandLine)),
            ("host", 0x5eed_0002, CommandShape(HostOptions.commandLine)),
            ("addr", 0x5eed_0003, CommandShape(AddrOptions.commandLine)),
            ("watch", 0x5eed_0004, CommandShape(WatchOptions.commandLine)),
        ]
        for (subcommand, seed, shape) in subcommands {
            var generator = CommandLineGenerator(seed: seed, shape: shape)
            var taken = 0
            var declined = 0
            // A line met before was compared before.
            var compared: Set<[String]> = []
            for index in 0..<lines {
                let words = generator.line(subcommand: subcommand)
                if ReachArguments.invocation(words) == nil {
                    declined += 1
                    continue
                }
                taken += 1
                if compared.insert(words).inserted {
                    assertSameAsArgumentParser(words, context: "seed \(String(seed, radix: 16)), line \(index)")
                }
            }
            print("\(subcommand): \(taken) taken (\(compared.count) different), \(declined) declined")
            // Enough of each kind to mean something.
            XCTAssertGreaterThan(taken, 400, "\(subcommand): the generator should exercise the fast road")
            XCTAssertGreaterThan(declined, lines / 2, "\(subcommand): the generator should make mistakes")
        }
    }

    /// Fails unless the fast reader declines `words` or ArgumentParser parses them to the same
    /// command and options. Answers whether the fast reader took them, and whether
    /// ArgumentParser parsed them (asked only when the fast reader took them).
    @discardableResult
    private func assertSameAsArgumentParser(_ words: [String], context: String, line: UInt = #line) -> (Bool, Bool) {
        // What ReachMain does before either reader sees a ping command line.
        var arguments = words
        if arguments.first == "ping" { arguments = ["ping"] + PingArguments.splittingFlagGroups(arguments.dropFirst()) }
        guard let fast = ReachArguments.invocation(arguments) else { return (false, false) }
        do {
            // The subcommand's own parse: what parseAsRoot does after taking the subcommand's
            // name, at less than half its cost. (Lines that skip the name: parseAsRoot itself.)
            let rest = Array(arguments.dropFirst())
            let parsed: ParsableCommand =
                switch arguments.first {
                case "status": try StatusCommand.parse(rest)
                case "host": try HostCommand.parse(rest)
                case "addr": try AddrCommand.parse(rest)
                case "watch": try WatchCommand.parse(rest)
                case "ping": try PingCommand.parse(rest)
                default: try ReachCommand.parseAsRoot(arguments)
                }
            XCTAssertEqual(fast, Self.invocation(of: parsed), "\(context): \(words.debugDescription)", line: line)
            return (true, true)
        } catch {
            let message = ReachCommand.message(for: error)
            XCTFail("\(context): the fast reader took \(words.debugDescription), ArgumentParser says: \(message)", line: line)
            return (true, false)
        }
    }

    private static func invocation(of command: ParsableCommand) -> ReachInvocation? {
        switch command {
        case let status as StatusCommand: .status(status.options)
        case let host as HostCommand: .host(host.options)
        case let addr as AddrCommand: .addr(addr.options)
        case let watch as WatchCommand: .watch(watch.options)
        case let ping as PingCommand: .ping(ping.options)
        default: nil
        }
    }
}

/// What the generator needs of a declaration: each option's names, arity and repeatability,
/// and the operand.
private struct CommandShape {
    struct Option {
        let names: [String]
        let letter: String?
        let takesValue: Bool
        let repeats: Bool
    }

    let options: [Option]
    /// 0: none, 1: required, 2: optional, 3: any number.
    let operand: Int

    init<Options>(_ declaration: CommandLineDeclaration<Options>) {
        options = declaration.options.map { option in
            let letter = option.letter.map { String(UnicodeScalar($0)) }
            let names = [letter.map { "-" + $0 }, option.long.map { "--" + $0 }].compactMap { $0 }
            switch option.setting {
            case .flag: return Option(names: names, letter: letter, takesValue: false, repeats: false)
            case .value(_, let repeats, _): return Option(names: names, letter: letter, takesValue: true, repeats: repeats)
            }
        }
        switch declaration.operand {
        case .none: operand = 0
        case .required: operand = 1
        case .optional: operand = 2
        case .variadic: operand = 3
        }
    }
}

/// Command lines for one subcommand, from its declared options: a plausible line (random
/// order, joined and separate values, `--name=value`, flag groups, repeated options), then,
/// most of the time, mistakes: unknown options, repeated ones, missing values, dashes, empty
/// words, help, non-UTF-8 bytes (which Swift's CommandLine.arguments turns into U+FFFD).
private struct CommandLineGenerator {
    var random: SplitMix64
    let shape: CommandShape

    init(seed: UInt64, shape: CommandShape) {
        random = SplitMix64(seed: seed)
        self.shape = shape
    }

    static let operands = [
        "127.0.0.1", "::1", "fe80::1%lo", "localhost", "db.internal", "198.51.100.7", "reachable", "help", "status", "host",
        "é", "\u{FFFD}", "a=b", "1", "0",
    ]
    static let values = [
        "5", "1.5s", "300ms", "0", "-1", "-1s", "-.5", "x", "", "icmp:127.0.0.1", "tcp:[::1]:80", "http://127.0.0.1:8080/p",
        "reachable", "lo", "eth0", "a=b", "=", "2147483648", "99999999999999999999", "+7", " 7", "0x10", "-", "--", "-h",
        "--help", "--version", "-x", "-qh", "\u{FFFD}", "help",
    ]
    static let strangers = [
        "--", "-", "", "-h", "--help", "-help", "--version", "-x", "--bogus", "--bogus=1", "--jso", "--JSON", "---json", "--=",
        "--probe-", "help", "--generate-completion-script", "--experimental-dump-help", "-é", "--\u{FFFD}", "-1",
    ]

    mutating func below(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }
    mutating func pick(_ words: [String]) -> String { words[below(words.count)] }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// A command line: the subcommand, then words.
    mutating func line(subcommand: String) -> [String] {
        var groups: [[String]] = []
        for _ in 0..<below(6) {
            let option = shape.options[below(shape.options.count)]
            let name = pick(option.names)
            if !option.takesValue {
                // A flag, or a group of flag letters.
                let letters = shape.options.filter { !$0.takesValue }.compactMap(\.letter)
                if option.letter != nil, !letters.isEmpty, chance(30) {
                    groups.append(["-" + (0..<below(3) + 1).map { _ in pick(letters) }.joined()])
                } else {
                    groups.append([name])
                }
            } else {
                let value = pick(Self.values)
                if name.hasPrefix("--") && chance(30) {
                    groups.append([name + "=" + value])
                } else if !name.hasPrefix("--") && chance(30) {
                    groups.append([name + value])
                } else {
                    groups.append([name, value])
                }
            }
        }
        if shape.operand == 1 || (shape.operand == 2 && chance(50)) { groups.append([pick(Self.operands)]) }
        if shape.operand == 3 {
            for _ in 0..<below(4) { groups.append([pick(Self.operands)]) }
        }
        // Random order, each option's value after it.
        var words: [String] = []
        while !groups.isEmpty { words += groups.remove(at: below(groups.count)) }
        // Most lines get mistakes.
        if chance(97) {
            for _ in 0..<below(2) + 2 { mistake(in: &words) }
        }
        // Now and then no subcommand word, or the subcommand's name misspelled.
        switch below(64) {
        case 0: return words
        case 1: return [subcommand.uppercased()] + words
        default: return [subcommand] + words
        }
    }

    mutating func mistake(in words: inout [String]) {
        let at = below(words.count + 1)
        switch below(12) {
        case 0, 8...11: words.insert(pick(Self.strangers), at: at)
        case 1: words.insert(pick(Self.operands), at: at)  // an operand too many, or one status does not take
        case 2: if !words.isEmpty { words.remove(at: below(words.count)) }  // a value or the operand missing
        case 3: if !words.isEmpty { words.insert(words[below(words.count)], at: at) }  // a word repeated
        case 4: words.insert(pick(shape.options[below(shape.options.count)].names), at: at)  // an option, maybe without its value
        case 5:
            // Bytes that need not be UTF-8, as the kernel may hand them over.
            let bytes = (0..<below(4) + 1).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            words.insert(String(decoding: bytes, as: UTF8.self), at: at)
        case 6: words.insert(pick(Self.values), at: at)
        default: if !words.isEmpty { words[below(words.count)] += pick(["=", "=1", "x", "-", " "]) }
        }
    }
}

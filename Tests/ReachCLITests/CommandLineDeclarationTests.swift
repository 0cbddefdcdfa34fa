import ArgumentParser
import Foundation
import XCTest

@testable import ReachCLI

/// Each subcommand's options are declared once, in its options' `commandLine`, which the
/// fast reader reads. The ArgumentParser commands cannot be generated from it: these tests
/// hold each one to its declaration, option by option (same names, arity, value parsing,
/// repeatability and field), and find any option a command has beyond it.
final class CommandLineDeclarationTests: XCTestCase {
    func testPing() throws {
        try DeclarationCheck(
            declaration: PingOptions.commandLine, blank: PingOptions(), operand: ["198.51.100.1"],
            base: PingOptions(hosts: ["198.51.100.1"]), convert: { (command: PingCommand) in command.options }
        ).run()
    }

    func testStatus() throws {
        try DeclarationCheck(
            declaration: StatusOptions.commandLine, blank: StatusOptions(), operand: [], base: StatusOptions(),
            convert: { (command: StatusCommand) in command.options }
        ).run()
    }

    func testHost() throws {
        try DeclarationCheck(
            declaration: HostOptions.commandLine, blank: HostOptions(), operand: ["db.internal"],
            base: HostOptions(names: ["db.internal"]), convert: { (command: HostCommand) in command.options }
        ).run()
    }

    func testAddr() throws {
        try DeclarationCheck(
            declaration: AddrOptions.commandLine, blank: AddrOptions(), operand: ["::1"],
            base: AddrOptions(addresses: ["::1"]), convert: { (command: AddrCommand) in command.options }
        ).run()
    }

    func testWatch() throws {
        let check = DeclarationCheck(
            declaration: WatchOptions.commandLine, blank: WatchOptions(), operand: [], base: WatchOptions(),
            convert: { (command: WatchCommand) in command.options })
        try check.run()
        // Any number of operands: none is the internet, each one a target.
        try check.assertBothRead(["db.internal"], as: WatchOptions(targets: ["db.internal"]))
        try check.assertBothRead(
            ["--json", "db.internal", "-4", "::1"],
            as: WatchOptions(targets: ["db.internal", "::1"], path: PathOptions(ipv4: true), output: OutputOptions(json: true)))
        try check.assertBothRead(["--textfile", "/tmp/reach.prom"], as: WatchOptions(textfile: "/tmp/reach.prom"))
    }

    /// A group's options set the group's fields in every subcommand that has the group.
    func testGroupsSetTheirOwnFields() throws {
        let words = ["-4", "--no-cellular", "-q", "--flags", "--probe", "icmp:a", "--probe=tcp:b:1", "--probe-timeout", "2s"]
        let expected = StatusOptions(
            path: PathOptions(ipv4: true, noCellular: true), probes: ProbeOptions(specs: ["icmp:a", "tcp:b:1"], probeTimeout: "2s"),
            output: OutputOptions(flags: true, quiet: true))
        XCTAssertEqual(StatusOptions.commandLine.read(words[...], into: StatusOptions()), expected)
        XCTAssertEqual(try StatusCommand.parse(words).options, expected)
    }
}

/// One subcommand's two readers: its declaration's fast reader and its ArgumentParser command.
struct DeclarationCheck<Command: ParsableCommand, Options: Equatable> {
    let declaration: CommandLineDeclaration<Options>
    /// What the fast reader starts from.
    let blank: Options
    /// The operand words every line needs (the host of ping), none when the operand is optional.
    let operand: [String]
    /// What `operand` alone reads as: every option at its default.
    let base: Options
    let convert: (Command) -> Options

    func run() throws {
        try checkCommandHasTheDeclaredOptionsAndNoOther()
        try checkEachOptionIsReadAsDeclared()
        checkEachOptionHasItsOwnNameAndField()
    }

    func fast(_ words: [String]) -> Options? {
        declaration.read(words[...], into: blank)
    }

    func assertBothRead(_ words: [String], as expected: Options, line: UInt = #line) throws {
        XCTAssertEqual(convert(try Command.parse(words)), expected, "ArgumentParser: \(words)", line: line)
        XCTAssertEqual(fast(words), expected, "fast reader: \(words)", line: line)
    }

    func assertBothRefuse(_ words: [String], line: UInt = #line) {
        XCTAssertThrowsError(try Command.parse(words), "ArgumentParser: \(words)", line: line)
        XCTAssertNil(fast(words), "fast reader: \(words)", line: line)
    }

    /// The options ArgumentParser knows for the command, by name, arity, value parsing and
    /// repeatability, are the declared ones: none missing, none more, none different (its own
    /// -h/--help aside); and so is its operand.
    func checkCommandHasTheDeclaredOptionsAndNoOther() throws {
        // ArgumentParser's description of the command, as `--experimental-dump-help` prints it.
        let dump = try JSONDecoder().decode(HelpDump.self, from: Data(Command._dumpHelp().utf8))
        var parsed: [String] = []
        var operands: [String] = []
        for argument in dump.command.arguments {
            let names = (argument.names ?? []).map { ($0.kind == "long" ? "--" : "-") + $0.name }.sorted()
            if argument.kind == "positional" {
                operands.append((argument.isOptional ? "optional" : "required") + (argument.isRepeating ? ", repeating" : ""))
            } else if names != ["--help", "-h"] {
                let repeating = argument.isRepeating ? ", repeating" : ""
                let arity = argument.kind == "flag" ? "flag" : "option, \(argument.parsingStrategy ?? "?")\(repeating)"
                parsed.append(names.joined(separator: " ") + " (\(arity))")
            }
        }
        let declared = declaration.options.map { option -> String in
            let arity: String
            switch option.setting {
            case .flag: arity = "flag"
            // ArgumentParser calls `.next` its default.
            case .value(let parsing, let repeats, _):
                arity = "option, \(parsing == .next ? "default" : "unconditional")\(repeats ? ", repeating" : "")"
            }
            return Self.names(of: option).sorted().joined(separator: " ") + " (\(arity))"
        }
        XCTAssertEqual(parsed.sorted(), declared.sorted(), "\(Command.self)")
        switch declaration.operand {
        case .none: XCTAssertEqual(operands, [], "\(Command.self)")
        case .required: XCTAssertEqual(operands, ["required"], "\(Command.self)")
        case .optional: XCTAssertEqual(operands, ["optional"], "\(Command.self)")
        case .variadic: XCTAssertEqual(operands, ["optional, repeating"], "\(Command.self)")
        }
    }

    /// Each declared option, by each of its names, given to the command, sets the field the
    /// declaration sets, takes a value exactly when declared to (joined too: `-c7`,
    /// `--count=7`), takes an option-like value exactly when declared `.unconditional`,
    /// refuses a value of the wrong type as the declaration does, and may be repeated exactly
    /// when declared to; the fast reader reads the same words to the same options.
    func checkEachOptionIsReadAsDeclared() throws {
        for option in declaration.options {
            for name in Self.names(of: option) {
                switch option.setting {
                case .flag(let set):
                    var expected = base
                    set(&expected)
                    try assertBothRead([name] + operand, as: expected)
                    try assertBothRead(operand + [name], as: expected)
                    if name.hasPrefix("--") { assertBothRefuse([name + "=1"] + operand) }
                case .value(let parsing, let repeats, let store):
                    for value in ["7", "-1", "x"] {
                        var expected = base
                        if !store(&expected, value) || (value.hasPrefix("-") && parsing == .next) {
                            assertBothRefuse([name, value] + operand)
                        } else {
                            try assertBothRead([name, value] + operand, as: expected)
                            try assertBothRead(operand + [name, value], as: expected)
                        }
                    }
                    var seven = base
                    _ = store(&seven, "7")
                    try assertBothRead([name.hasPrefix("--") ? name + "=7" : name + "7"] + operand, as: seven)
                    assertBothRefuse(operand + [name])
                    if repeats {
                        var twice = seven
                        _ = store(&twice, "8")
                        try assertBothRead([name, "7"] + operand + [name, "8"], as: twice)
                    } else {
                        XCTAssertNil(fast([name, "7", name, "8"] + operand), "\(name) given twice")
                    }
                }
            }
        }
        try assertBothRead(operand, as: base)
        switch declaration.operand {
        case .none: assertBothRefuse(["word"])
        case .required: assertBothRefuse([])
        case .optional: assertBothRefuse(["word", "word"])
        case .variadic(let append):
            // Any number of words, in order, options among them; none at all is execute()'s to refuse.
            try assertBothRead([], as: blank)
            var three = blank
            for word in ["a", "b", "a"] { append(&three, word) }
            try assertBothRead(["a", "b", "a"], as: three)
            let withFlag = declaration.options.compactMap { option -> (String, OptionDeclaration<Options>.Setting)? in
                guard case .flag = option.setting else { return nil }
                return (Self.names(of: option)[0], option.setting)
            }.first
            if let (name, setting) = withFlag, case .flag(let set) = setting {
                var flagged = three
                set(&flagged)
                try assertBothRead(["a", name, "b", "a"], as: flagged)
            }
        }
    }

    /// Each option has names no other option has, and a field no other option sets.
    func checkEachOptionHasItsOwnNameAndField() {
        var names: [String] = []
        var results: [Options] = [base]
        for option in declaration.options {
            names += Self.names(of: option)
            var options = base
            switch option.setting {
            case .flag(let set): set(&options)
            case .value(_, _, let store): _ = store(&options, "7")
            }
            XCTAssertFalse(results.contains(options), "\(names.last ?? "no name") sets nothing, or what another option sets")
            results.append(options)
        }
        XCTAssertEqual(names.count, Set(names).count, "a name declared twice: \(names)")
    }

    static func names(of option: OptionDeclaration<Options>) -> [String] {
        let names = [option.letter.map { "-" + String(UnicodeScalar($0)) }, option.long.map { "--" + $0 }].compactMap { $0 }
        XCTAssertFalse(names.isEmpty, "an option with no name")
        return names
    }
}

/// The part of ArgumentParser's JSON description of a command (ToolInfoV0) these tests read.
private struct HelpDump: Decodable {
    struct Command: Decodable {
        let arguments: [Argument]
    }

    struct Argument: Decodable {
        /// "positional", "option" or "flag".
        let kind: String
        let names: [Name]?
        /// For options: "default" (`.next`), "unconditional", ...
        let parsingStrategy: String?
        let isOptional: Bool
        let isRepeating: Bool
    }

    struct Name: Decodable {
        /// "short", "long" or "longWithSingleDash".
        let kind: String
        let name: String
    }

    let command: Command
}

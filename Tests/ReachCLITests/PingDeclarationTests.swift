import ArgumentParser
import Foundation
import XCTest

@testable import ReachCLI

/// `reach ping`'s options are declared once, in PingOptions.commandLine, which the fast
/// reader reads. PingCommand's ArgumentParser properties cannot be generated from it: these
/// tests hold them to it, option by option, and find any option PingCommand has beyond it.
final class PingDeclarationTests: XCTestCase {
    private let declaration = PingOptions.commandLine
    private let host = "198.51.100.1"

    /// The options ArgumentParser knows for PingCommand, by name, arity and value parsing, are
    /// the declared ones: none missing, none more, none different (its own -h/--help aside).
    func testPingCommandHasTheDeclaredOptionsAndNoOther() throws {
        // ArgumentParser's description of the command, as `--experimental-dump-help` prints it.
        let dump = try JSONDecoder().decode(HelpDump.self, from: Data(PingCommand._dumpHelp().utf8))
        var parsed: [String] = []
        var operands = 0
        for argument in dump.command.arguments {
            let names = (argument.names ?? []).map { ($0.kind == "long" ? "--" : "-") + $0.name }.sorted()
            if argument.kind == "positional" {
                operands += 1
            } else if names != ["--help", "-h"] {
                let arity = argument.kind == "flag" ? "flag" : "\(argument.kind), \(argument.parsingStrategy ?? "?")"
                parsed.append(names.joined(separator: " ") + " (\(arity))")
            }
        }
        let declared = declaration.options.map { option -> String in
            let names = [option.letter.map { "-" + String(UnicodeScalar($0)) }, option.long.map { "--" + $0 }]
            let arity: String
            switch option.setting {
            case .flag: arity = "flag"
            // ArgumentParser calls `.next` its default.
            case .value(_, .next): arity = "option, default"
            case .value(_, .unconditional): arity = "option, unconditional"
            }
            return names.compactMap { $0 }.sorted().joined(separator: " ") + " (\(arity))"
        }
        XCTAssertEqual(parsed.sorted(), declared.sorted())
        XCTAssertEqual(operands, 1, "one operand, the host")
    }

    /// Each declared option, given to PingCommand, sets the field the declaration names, takes
    /// a value exactly when declared to, and takes an option-like value exactly when declared
    /// `.unconditional`; the fast reader reads the same words to the same options.
    func testPingCommandReadsEachOptionAsDeclared() throws {
        for option in declaration.options {
            let name = option.letter.map { "-" + String(UnicodeScalar($0)) } ?? "--" + (option.long ?? "")
            switch option.setting {
            case .flag(let field):
                var expected = PingOptions(host: host)
                _ = field(&expected) { flag in
                    flag = true
                    return true
                }
                try assertBothRead([name, host], as: expected)
                // No value: the word after it is an operand, here a second one.
                XCTAssertThrowsError(try PingCommand.parse([name, "7", host]), name)
            case .value(let field, let parsing):
                for value in ["7", "-1"] {
                    var expected = PingOptions(host: host)
                    _ = field(&expected) { slot in
                        slot = value
                        return true
                    }
                    if value.hasPrefix("-") && parsing == .next {
                        XCTAssertThrowsError(try PingCommand.parse([name, value, host]), "\(name) \(value)")
                        XCTAssertNil(PingArguments.options([name, value, host]), "\(name) \(value)")
                    } else {
                        try assertBothRead([name, value, host], as: expected)
                    }
                }
                if option.letter != nil {
                    var expected = PingOptions(host: host)
                    _ = field(&expected) { slot in
                        slot = "7"
                        return true
                    }
                    try assertBothRead([name + "7", host], as: expected)
                }
                XCTAssertThrowsError(try PingCommand.parse([host, name]), "\(name) without its value")
                XCTAssertNil(PingArguments.options([host, name]), "\(name) without its value")
            }
        }
        try assertBothRead([host], as: PingOptions(host: host))
    }

    /// Each option has a name no other option has, and a field no other option sets.
    func testEachOptionHasItsOwnNameAndField() {
        var names: [String] = []
        var results: [PingOptions] = [PingOptions(host: host)]
        for option in declaration.options {
            XCTAssertTrue(option.letter != nil || option.long != nil, "an option with no name")
            names += [option.letter.map { "-" + String(UnicodeScalar($0)) }, option.long.map { "--" + $0 }].compactMap { $0 }
            var options = PingOptions(host: host)
            switch option.setting {
            case .flag(let field):
                _ = field(&options) { flag in
                    flag = true
                    return true
                }
            case .value(let field, _):
                _ = field(&options) { slot in
                    slot = "7"
                    return true
                }
            }
            XCTAssertFalse(results.contains(options), "\(names.last ?? "") sets nothing, or what another option sets")
            results.append(options)
        }
        XCTAssertEqual(names.count, Set(names).count, "a name declared twice: \(names)")
    }

    private func assertBothRead(_ words: [String], as expected: PingOptions, line: UInt = #line) throws {
        XCTAssertEqual(try PingCommand.parse(words).options, expected, "ArgumentParser: \(words)", line: line)
        XCTAssertEqual(PingArguments.options(words[...]), expected, "fast reader: \(words)", line: line)
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
    }

    struct Name: Decodable {
        /// "short", "long" or "longWithSingleDash".
        let kind: String
        let name: String
    }

    let command: Command
}

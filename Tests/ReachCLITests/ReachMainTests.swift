import ArgumentParser
import XCTest

@testable import ReachCLI
import ReachSystem

final class ReachMainTests: XCTestCase {
    /// `reach status --help` once printed the root's help: the parser returns its own
    /// HelpCommand for these, which dispatch must run rather than replace.
    func testHelpOfASubcommandIsThatSubcommandsHelp() throws {
        let cases: [(arguments: [String], usage: String)] = [
            (["status", "--help"], "USAGE: reach status"),
            (["host", "-h"], "USAGE: reach host"),
            (["help", "addr"], "USAGE: reach addr"),
            (["--help"], "USAGE: reach <subcommand>"),
        ]
        for (arguments, usage) in cases {
            let command = try ReachCommand.parseAsRoot(arguments)
            XCTAssertThrowsError(try ReachMain.dispatch(command), "\(arguments)") { error in
                let (status, message) = ExitStatus.of(error)
                XCTAssertEqual(status, .success, "\(arguments)")
                XCTAssertNil(message, "help goes to stdout, not as a one-line error: \(arguments)")
                let help = ReachCommand.fullMessage(for: error)
                XCTAssertTrue(help.contains(usage), "\(arguments) printed:\n\(help)")
            }
        }
    }

    /// ArgumentParser prints the root's help, exit 0, for a topic it does not know.
    func testHelpOfNoSuchCommandIsAUsageError() throws {
        for arguments in [["help", "nonsense"], ["help", "status", "host"], ["help", "-h", "frob"]] {
            XCTAssertThrowsError(try ReachMain.checkHelpTopics(arguments), "\(arguments)") { error in
                let (status, message) = ExitStatus.of(error)
                XCTAssertEqual(status, .usage, "\(arguments)")
                XCTAssertTrue(message?.contains("no command '\(arguments.last!)'") == true, message ?? "nil")
            }
        }
        for arguments in [["help"], ["help", "addr"], ["help", "help"], ["help", "-h"], ["status", "nonsense"]] {
            XCTAssertNoThrow(try ReachMain.checkHelpTopics(arguments), "\(arguments)")
        }
    }

    func testSubcommandHelpListsItsOwnOptions() throws {
        let command = try ReachCommand.parseAsRoot(["host", "--help"])
        XCTAssertThrowsError(try ReachMain.dispatch(command)) { error in
            let help = ReachCommand.fullMessage(for: error)
            XCTAssertTrue(help.contains("--timeout"), help)
            XCTAssertTrue(help.contains("--no-cellular"), help)
        }
    }
}

import Foundation
import XCTest

@testable import ReachCLI
import ReachCommandLine

/// `--targets-from`'s lines: one target a line, `#` comments and blank lines skipped, every
/// fault a usage error that names the line.
final class TargetListTests: XCTestCase {
    private func lines(_ text: [UInt8], room: Int = TargetList.maximumTargets) throws -> [String] {
        try TargetList.lines(text, source: "list", room: room).texts
    }

    func testCommentsBlanksAndLineEndings() throws {
        let text = "# header\n\ndb.internal\r\n  198.51.100.7\t# the cache\n\t\n::1\nlast-without-newline"
        XCTAssertEqual(try lines(Array(text.utf8)), ["db.internal", "198.51.100.7", "::1", "last-without-newline"])
        XCTAssertEqual(try lines([]), [])
        XCTAssertEqual(try lines(Array("#\n#\n".utf8)), [])
    }

    /// A target from the file that is refused later (no address, no name) names its file and
    /// line; an operand's fault stays as it was.
    func testAFaultFoundLaterNamesTheFileAndLine() throws {
        let collected = TargetList.Collected(
            texts: ["198.51.100.7", "198.51.100.8", "999.1.1.1"], origins: [("list", 2), ("list", 5)])
        XCTAssertThrowsError(try collected.map(TargetArgument.address)) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--targets-from list: line 5: invalid IP address '999.1.1.1'")
        }
        let operand = TargetList.Collected(texts: ["999.1.1.1"])
        XCTAssertThrowsError(try operand.map(TargetArgument.address)) { error in
            XCTAssertEqual((error as? UsageError)?.message, "invalid IP address '999.1.1.1'")
        }
        XCTAssertEqual(try TargetList.Collected(texts: ["a", "b"], origins: [("list", 1)]).map { $0 + "!" }, ["a!", "b!"])
    }

    func testFaultsNameTheirLine() {
        XCTAssertThrowsError(try lines(Array("ok\nd\u{62}\n".utf8) + [0xff, 0x0a])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--targets-from list: line 3 is not valid UTF-8")
        }
        XCTAssertThrowsError(try lines(Array("a b\n".utf8))) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--targets-from list: line 1: one target a line: 'a b'")
        }
        XCTAssertThrowsError(try lines(Array("a\nb\nc\n".utf8), room: 2)) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--targets-from list: more than 65536 targets")
        }
    }

    func testOperandsAloneAndNone() throws {
        XCTAssertEqual(try TargetList.collect(["a", "b"], from: []), ["a", "b"])
        XCTAssertThrowsError(try TargetList.collect([], from: [])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "no target given (name one, or --targets-from FILE)")
        }
        XCTAssertThrowsError(try TargetList.collect(Array(repeating: "a", count: 65_537), from: []))
        XCTAssertThrowsError(try TargetList.collect([], from: ["/nonexistent/list"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--targets-from /nonexistent/list: No such file or directory")
        }
    }

    /// --targets-from given twice: both files, in order, after the operands; a fault names
    /// the file it is in; standard input twice is refused, not read empty the second time.
    func testEveryFileInOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-targets-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("first").path
        let second = directory.appendingPathComponent("second").path
        try "198.51.100.1\n198.51.100.2\n".write(toFile: first, atomically: true, encoding: .utf8)
        try "# more\n198.51.100.3\n999.1.1.1\n".write(toFile: second, atomically: true, encoding: .utf8)
        let collected = try TargetList.gather(["198.51.100.9"], from: [first, second])
        XCTAssertEqual(collected.texts, ["198.51.100.9", "198.51.100.1", "198.51.100.2", "198.51.100.3", "999.1.1.1"])
        XCTAssertThrowsError(try collected.map(TargetArgument.address)) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--targets-from \(second): line 3: invalid IP address '999.1.1.1'")
        }
        XCTAssertThrowsError(try TargetList.collect([], from: ["-", first, "-"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--targets-from -: standard input can be read only once")
        }
    }

    /// fping -g START END: every address from the start to the end, both included, across
    /// byte boundaries; IPv6 too.
    func testGenerateRangeIncludesBothEnds() throws {
        XCTAssertEqual(
            try TargetList.generate(from: "198.51.100.254", to: "198.51.101.1"),
            ["198.51.100.254", "198.51.100.255", "198.51.101.0", "198.51.101.1"])
        XCTAssertEqual(
            try TargetList.generate(from: "2001:db8::ffff", to: "2001:db8::1:1"), ["2001:db8::ffff", "2001:db8::1:0", "2001:db8::1:1"])
        XCTAssertEqual(try TargetList.generate(from: "198.51.100.7", to: "198.51.100.7"), ["198.51.100.7"])
        XCTAssertEqual(try TargetList.generate(from: "198.51.0.0", to: "198.51.255.255").count, TargetList.maximumTargets)
    }

    func testGenerateRangeRefusals() {
        for (start, end, says) in [
            ("198.51.100.9", "198.51.100.1", "comes before the start"),
            ("198.51.100.1", "2001:db8::1", "not of one family"),
            ("198.51.0.0", "198.52.0.0", "more than 65536 addresses"),
            ("::", "ffff::", "more than 65536 addresses"),
            ("198.51.100.1", "db.internal", "'db.internal' is not an IP address"),
            ("fe80::1%lo", "fe80::2", "is not an IP address"),
        ] {
            XCTAssertThrowsError(try TargetList.generate(from: start, to: end), "\(start) \(end)") { error in
                XCTAssertTrue((error as? UsageError)?.message.contains(says) == true, "\(start) \(end): \(error)")
            }
        }
        XCTAssertThrowsError(try TargetList.generate(from: "198.51.100.1", to: "198.51.100.2", after: TargetList.maximumTargets - 1))
    }
}

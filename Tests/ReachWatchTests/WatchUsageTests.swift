import Foundation
import XCTest

/// Bad input to `reach watch`: one `reach: ` line on stderr, nothing on stdout, exit 64.
/// These never reach the network, so they run without root.
final class WatchUsageTests: XCTestCase {
    func testBadInputIsOneLineAndSixtyFour() throws {
        let binary = try reachBinary()
        let cases: [[String]] = [
            ["--settle", "soon"], ["--timeout", "0"], ["--timeout", "-1s"], ["--until", "up"], ["--count", "0"],
            ["--count", "x"], ["--interface", "a/b"], ["--interface", "sixteen-chars-xx"], ["--resolve-interval", "0"],
            ["-4", "2001:db8::1"], ["-4", "-6", "example.invalid"], ["bad name"], ["fe80::1%nosuchlink0"],
        ]
        for arguments in cases {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["watch"] + arguments
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let out = output.fileHandleForReading.readDataToEndOfFile()
            let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 64, "\(arguments): \(err)")
            XCTAssertTrue(out.isEmpty, "\(arguments)")
            XCTAssertTrue(err.hasPrefix("reach: "), "\(arguments): \(err)")
            XCTAssertEqual(err.filter { $0 == "\n" }.count, 1, "\(arguments): \(err)")
        }
    }
}

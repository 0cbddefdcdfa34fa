#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import XCTest

/// Output that cannot be written is a failure a script can see: one `reach:` line, exit 71.
/// A reader that goes away (EPIPE) is not: PingTests and WatchTests hold that.
final class OutputFailureTests: XCTestCase {
    func testAFullDeviceOnStandardOutputIsExit71WithOneLine() throws {
        // Route lookups and loopback only: nothing leaves the machine.
        try assertExit71OnAFullDevice([["addr", "127.0.0.1"], ["addr", "--json", "::1"], ["--help"]])
    }

    func testPingOnAFullDeviceIsExit71WithOneLine() throws {
        // ping opens its socket as root (without root it would stop at exit 77 before writing).
        try Privilege.requireRootAndTools([])
        try assertExit71OnAFullDevice([["ping", "-c", "1", "127.0.0.1"]])
    }

    private func assertExit71OnAFullDevice(_ cases: [[String]], file: StaticString = #filePath, line: UInt = #line) throws {
        if access("/dev/full", W_OK) != 0 { try ContinuousIntegration.cannotRun("no /dev/full", file: file, line: line) }
        try ReachBinary.requireBuilt()
        for arguments in cases {
            let result = try Subprocess.run(["/bin/sh", "-c", "exec \"$0\" \"$@\" >/dev/full", ReachBinary.path] + arguments)
            XCTAssertEqual(result.status, 71, "\(arguments): \(result)", file: file, line: line)
            XCTAssertEqual(result.stderrLines, ["reach: cannot write to standard output: No space left on device"], "\(arguments)",
                           file: file, line: line)
        }
    }
}

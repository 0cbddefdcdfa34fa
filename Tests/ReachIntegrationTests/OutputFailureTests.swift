#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// Output that cannot be written is a failure a script can see: one `reach:` line, exit 71.
/// A reader that goes away (EPIPE) is not: PingTests and WatchTests hold that.
final class OutputFailureTests: XCTestCase {
    func testAFullDeviceOnStandardOutputIsExit71WithOneLine() throws {
        try XCTSkipIf(access("/dev/full", W_OK) != 0, "no /dev/full")
        // Route lookups and loopback only: nothing leaves the machine. ping opens its
        // socket as root (without root it would stop at exit 77 before writing).
        var cases = [["addr", "127.0.0.1"], ["addr", "--json", "::1"], ["--help"]]
        if getuid() == 0 { cases.append(["ping", "-c", "1", "127.0.0.1"]) }
        for arguments in cases {
            try ReachBinary.requireBuilt()
            let result = try Subprocess.run(["/bin/sh", "-c", "exec \"$0\" \"$@\" >/dev/full", ReachBinary.path] + arguments)
            XCTAssertEqual(result.status, 71, "\(arguments): \(result)")
            XCTAssertEqual(result.stderrLines, ["reach: cannot write to standard output: No space left on device"], "\(arguments)")
        }
    }
}

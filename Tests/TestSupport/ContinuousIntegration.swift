#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// Whether the tests run in CI, and what a test that cannot run does there: it fails, where
/// a developer's machine sees it skipped. The one place that reads `CI`.
public enum ContinuousIntegration {
    /// `CI` set to anything but empty, `false` or `0`: CI services set `CI=true` (GitHub
    /// Actions, GitLab CI), other runners and users `CI=1`; `.ci/run` keeps a value already set.
    public static var isOn: Bool {
        isOn(value: getenv("CI").map { String(cString: $0) })
    }

    public static func isOn(value: String?) -> Bool {
        guard let value, !value.isEmpty else { return false }
        return !["false", "0"].contains(value.lowercased())
    }

    /// Stops a test that cannot run here: XCTSkip on a developer's machine; in CI a failure at
    /// the caller's line, then a thrown error.
    public static func cannotRun(_ why: String, file: StaticString = #filePath, line: UInt = #line) throws -> Never {
        if isOn {
            XCTFail("\(why) (CI is set: not skipping)", file: file, line: line)
            throw Unavailable(why: why)
        }
        throw XCTSkip(why)
    }

    public struct Unavailable: Error, CustomStringConvertible {
        public let why: String
        public var description: String { why }
    }
}

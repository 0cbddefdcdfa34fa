#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import XCTest

/// The built `reach` executable, run as a user would: by path, in a namespace or not.
enum ReachBinary {
    /// `.build/debug/reach` of this package (`swift build --build-tests` builds it), found from
    /// this file's path; `REACH_BINARY` overrides it (to test a release build).
    static let path: String = {
        if let override = ProcessInfo.processInfo.environment["REACH_BINARY"], !override.isEmpty { return override }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() } // Harness, ReachIntegrationTests, Tests, the file
        return root.appendingPathComponent(".build/debug/reach").path
    }()

    static func requireBuilt() throws {
        guard access(path, X_OK) == 0 else {
            throw HarnessError("no reach binary at \(path): run `swift build` (or `make test`) first")
        }
    }

    /// Runs reach directly, in the test's own namespace: for cases that touch no network.
    static func run(_ arguments: [String], timeout: Double = 20) throws -> CommandResult {
        try requireBuilt()
        return try Subprocess.run([path] + arguments, timeout: timeout)
    }

    /// Runs reach with arguments given as raw bytes (bytes that are not UTF-8).
    static func run(bytes arguments: [[UInt8]], timeout: Double = 20) throws -> CommandResult {
        try requireBuilt()
        return try Subprocess.run([Array(path.utf8)] + arguments, timeout: timeout)
    }

    /// Runs reach inside a lab namespace with `ip netns exec`.
    static func run(_ arguments: [String], in namespace: Namespace, timeout: Double = 20) throws -> CommandResult {
        try requireBuilt()
        return try namespace.exec([path] + arguments, timeout: timeout)
    }
}

/// The namespace tests need root; a developer without it sees them skipped, CI
/// (ContinuousIntegration.isOn) sees them fail, so they never silently stop running there.
enum Privilege {
    static func requireRootAndTools(_ tools: [String] = ["ip", "python3", "dnsmasq", "sysctl"],
                                    file: StaticString = #filePath, line: UInt = #line) throws {
        var missing: [String] = []
        if geteuid() != 0 { missing.append("root") }
        for tool in tools where !onPath(tool) {
            missing.append("the \(tool) command")
        }
        guard !missing.isEmpty else { return }
        try ContinuousIntegration.cannotRun("namespace tests need " + missing.joined(separator: ", "), file: file, line: line)
    }

    private static func onPath(_ tool: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { access("\($0)/\(tool)", X_OK) == 0 }
            || ["/usr/sbin", "/sbin"].contains { access("\($0)/\(tool)", X_OK) == 0 }
    }
}

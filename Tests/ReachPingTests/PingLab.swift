#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

// A small namespace harness for the ping tests, kept to this target until the shared
// integration harness (Tests/ReachIntegrationTests) lands and they can be unified.

struct Run: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    var description: String { "exit \(status)\nstdout: \(stdout.debugDescription)\nstderr: \(stderr.debugDescription)" }

    /// The JSON objects printed one per line.
    var objects: [[String: Any]] {
        stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// Runs a program to the end (killed after `timeout` seconds) and collects its output.
@discardableResult
func run(_ arguments: [String], timeout: Double = 30, check: Bool = false) throws -> Run {
    let process = try start(arguments)
    let deadline = Date().addingTimeInterval(timeout)
    while process.process.isRunning && Date() < deadline { usleep(5000) }
    if process.process.isRunning { kill(process.process.processIdentifier, SIGKILL) }
    let result = process.finish()
    if check && result.status != 0 { throw LabError("\(arguments.joined(separator: " ")) failed: \(result)") }
    return result
}

/// A program started in the background.
final class Started {
    let process = Process()
    private let out = Pipe()
    private let err = Pipe()
    private var outData = Data()
    private var errData = Data()
    private let group = DispatchGroup()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment["LC_ALL"] = "C"
        process.environment = environment
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Drain both pipes as the program writes, so a full pipe never blocks it.
        group.enter()
        DispatchQueue.global().async { [self] in outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { [self] in errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    }

    var pid: Int32 { process.processIdentifier }

    func finish() -> Run {
        process.waitUntilExit()
        group.wait()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return Run(status: status, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }
}

func start(_ arguments: [String]) throws -> Started { try Started(arguments) }

struct LabError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The reach binary under test, and a copy that `nobody` can execute (the clone may sit
/// under a directory other users cannot enter, REFERENCE §8).
enum ReachUnderTest {
    static let path: String = {
        if let override = ProcessInfo.processInfo.environment["REACH_BINARY"], !override.isEmpty { return override }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.appendingPathComponent(".build/debug/reach").path
    }()

    /// Copies the binary into a fresh world-readable directory; the caller removes it.
    static func copyForOtherUsers() throws -> String {
        let directory = "/tmp/rch-ping-bin-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        let copy = directory + "/reach"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        chmod(copy, 0o755)
        return copy
    }
}

/// Namespaces named `rch-ping-<pid>-<name>`, deleted in `tearDown`.
final class PingLab {
    let prefix = "rch-ping-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
    private(set) var namespaces: [String] = []
    private var cleanups: [() -> Void] = []

    func namespace(_ name: String) throws -> String {
        let full = "\(prefix)-\(name)"
        try run(["ip", "netns", "add", full], check: true)
        namespaces.append(full)
        try run(["ip", "-n", full, "link", "set", "lo", "up"], check: true)
        return full
    }

    func ip(_ namespace: String, _ arguments: String...) throws {
        try run(["ip", "-n", namespace] + arguments, check: true)
    }

    func exec(_ namespace: String, _ arguments: [String], timeout: Double = 30) throws -> Run {
        try run(["ip", "netns", "exec", namespace] + arguments, timeout: timeout)
    }

    func sysctl(_ namespace: String, _ setting: String) throws {
        try run(["ip", "netns", "exec", namespace, "sysctl", "-qw", setting], check: true)
    }

    func onTearDown(_ cleanup: @escaping () -> Void) { cleanups.append(cleanup) }

    func tearDown() {
        for cleanup in cleanups.reversed() { cleanup() }
        for namespace in namespaces.reversed() { _ = try? run(["ip", "netns", "delete", namespace]) }
    }

    /// client ── router ── far, IPv4 and IPv6 (REFERENCE: only 198.18.0.0/15 and 2001:db8::/32):
    ///   client v0 198.18.0.2 / 2001:db8::2     router r0 198.18.0.1 / 2001:db8::1
    ///   router r1 198.18.1.1 / 2001:db8:1::1   far f0 198.18.1.2 (.3 drops echo requests)
    /// The router has `unreachable` routes for 198.19.9.0/24 and 2001:db8:f1::/48 and sends
    /// ICMP errors without rate limit.
    struct Topology {
        var client: String
        var router: String
        var far: String
    }

    func topology() throws -> Topology {
        let client = try namespace("c"), router = try namespace("r"), far = try namespace("f")
        try run(["ip", "link", "add", "v0", "netns", client, "type", "veth", "peer", "name", "r0", "netns", router], check: true)
        try run(["ip", "link", "add", "r1", "netns", router, "type", "veth", "peer", "name", "f0", "netns", far], check: true)
        for (namespace, link, v4, v6) in [(client, "v0", "198.18.0.2/24", "2001:db8::2/64"),
                                          (router, "r0", "198.18.0.1/24", "2001:db8::1/64"),
                                          (router, "r1", "198.18.1.1/24", "2001:db8:1::1/64"),
                                          (far, "f0", "198.18.1.2/24", "2001:db8:1::2/64")] {
            try ip(namespace, "addr", "add", v4, "dev", link)
            try ip(namespace, "-6", "addr", "add", v6, "dev", link, "nodad")
            try ip(namespace, "link", "set", link, "up")
        }
        try ip(far, "addr", "add", "198.18.1.3/24", "dev", "f0")
        try ip(far, "-6", "addr", "add", "2001:db8:1::3/64", "dev", "f0", "nodad")
        try sysctl(router, "net.ipv4.ip_forward=1")
        try sysctl(router, "net.ipv6.conf.all.forwarding=1")
        // Routers rate-limit ICMP errors (1 s per destination by default): off, or counts flake.
        try sysctl(router, "net.ipv4.icmp_ratelimit=0")
        try sysctl(router, "net.ipv6.icmp.ratelimit=0")
        try ip(client, "route", "add", "default", "via", "198.18.0.1")
        try ip(client, "-6", "route", "add", "default", "via", "2001:db8::1")
        try ip(far, "route", "add", "default", "via", "198.18.1.1")
        try ip(far, "-6", "route", "add", "default", "via", "2001:db8:1::1")
        try ip(router, "route", "add", "unreachable", "198.19.9.0/24")
        try ip(router, "-6", "route", "add", "unreachable", "2001:db8:f1::/48")
        let rules = """
            table inet rchdrop {
              chain input {
                type filter hook input priority 0;
                ip daddr 198.18.1.3 icmp type echo-request drop
                ip6 daddr 2001:db8:1::3 icmpv6 type echo-request drop
              }
            }
            """
        let path = "/tmp/\(prefix)-drop.nft"
        try rules.write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        _ = try exec(far, ["nft", "-f", path])
        // Wait until the path answers (links come up asynchronously).
        for _ in 0..<100 {
            if try exec(client, ["ping", "-c1", "-W1", "-q", "198.18.1.2"]).status == 0,
               try exec(client, ["ping", "-6", "-c1", "-W1", "-q", "2001:db8:1::2"]).status == 0 { break }
            usleep(50_000)
        }
        return Topology(client: client, router: router, far: far)
    }
}

/// Root and the tools are needed: skip without them, except in CI (CI=true), where a
/// skipped namespace test would hide a failure.
class PingLabTestCase: XCTestCase {
    var lab: PingLab!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let inCI = ProcessInfo.processInfo.environment["CI"] == "true"
        var missing: [String] = []
        if geteuid() != 0 { missing.append("root") }
        for tool in ["/usr/sbin/ip", "/usr/bin/ping", "/usr/sbin/nft", "/usr/bin/setpriv", "/usr/sbin/setcap"]
            where access(tool, X_OK) != 0 { missing.append(tool) }
        if access(ReachUnderTest.path, X_OK) != 0 { missing.append(ReachUnderTest.path + " (swift build)") }
        if !missing.isEmpty {
            if inCI { throw LabError("namespace ping tests need: \(missing.joined(separator: ", "))") }
            throw XCTSkip("namespace ping tests need: \(missing.joined(separator: ", "))")
        }
        let lab = PingLab()
        self.lab = lab
        addTeardownBlock { lab.tearDown() }
    }

    func reach(_ arguments: [String], in namespace: String, timeout: Double = 30) throws -> Run {
        try lab.exec(namespace, [ReachUnderTest.path] + arguments, timeout: timeout)
    }

    /// As `nobody`/`nogroup` with no supplementary groups, the binary at `binary`.
    func reachAsNobody(_ binary: String, _ arguments: [String], in namespace: String) throws -> Run {
        try lab.exec(namespace, ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups", binary] + arguments)
    }
}

import Foundation
import XCTest

// A small namespace harness for the watch tests: made to be folded into the shared
// integration harness (Tests/ReachIntegrationTests) once that lands.

/// The built `reach` binary: $REACH_BINARY, or next to the test bundle in .build.
func reachBinary() throws -> String {
    if let path = ProcessInfo.processInfo.environment["REACH_BINARY"] { return path }
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<3 {
        let candidate = directory.appendingPathComponent("reach").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        directory.deleteLastPathComponent()
    }
    throw XCTSkip("reach binary not found next to \(CommandLine.arguments[0]); run `swift build` first")
}

/// Namespace tests need root: without it they skip, except in CI (CI=true), where they fail.
func requireRoot() throws {
    guard geteuid() != 0 else { return }
    if ProcessInfo.processInfo.environment["CI"] == "true" {
        XCTFail("namespace tests must run as root in CI")
        throw XCTSkip("not root")
    }
    throw XCTSkip("namespace tests need root")
}

@discardableResult
func runCommand(_ arguments: [String], allowFailure: Bool = false) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let output = String(decoding: data, as: UTF8.self)
    if process.terminationStatus != 0 && !allowFailure {
        throw NSError(domain: "run", code: Int(process.terminationStatus),
                      userInfo: [NSLocalizedDescriptionKey: "\(arguments.joined(separator: " ")): \(output)"])
    }
    return (process.terminationStatus, output)
}

/// A private network namespace, `rch-watch-<n>`, with one veth pair inside it:
/// v0 (198.18.0.2/24, ours) and its peer v1, and a default route via 198.18.0.1.
/// Deleted when the test ends, whatever happened.
final class WatchNamespace {
    let name: String

    init(defaultRoute: Bool = true) throws {
        name = "rch-watch-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
        try runCommand(["ip", "netns", "add", name])
        do {
            try ip("link set lo up")
            try ip("link add v0 type veth peer name v1")
            try ip("link set v1 up")
            try ip("link set v0 up")
            try ip("addr add 198.18.0.2/24 dev v0")
            if defaultRoute { try ip("route add default via 198.18.0.1") }
        } catch {
            delete()
            throw error
        }
    }

    /// `ip -n NAME <words>`.
    func ip(_ command: String) throws {
        try runCommand(["ip", "-n", name] + command.split(separator: " ").map(String.init))
    }

    /// `ip -n NAME -batch FILE`: many changes as fast as iproute2 can send them.
    func ipBatch(_ lines: [String]) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).batch")
        try lines.joined(separator: "\n").appending("\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        try runCommand(["ip", "-n", name, "-batch", file.path])
    }

    func reach(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runCommand(["ip", "netns", "exec", name, try reachBinary()] + arguments, allowFailure: true)
    }

    /// Writes /etc/netns/NAME/FILE, which `ip netns exec` mounts over /etc/FILE; returns its path.
    @discardableResult
    func etcFile(_ file: String, _ text: String) throws -> String {
        let directory = "/etc/netns/\(name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = "\(directory)/\(file)"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    func delete() {
        _ = try? runCommand(["ip", "netns", "delete", name], allowFailure: true)
        try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
    }

    deinit { delete() }
}

/// What a watch process wrote, collected by reader threads that outlive nobody.
final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [WatchProcess.Line] = []
    private var errors = Data()
    private var errorsClosed = false

    func append(_ line: WatchProcess.Line) { locked { lines.append(line) } }
    func closeErrors(_ data: Data) { locked { errors = data; errorsClosed = true } }
    var snapshot: [WatchProcess.Line] { locked { lines } }
    var errorText: String? { locked { errorsClosed ? String(decoding: errors, as: UTF8.self) : nil } }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

/// `reach watch` running inside a namespace, its stdout lines stamped on arrival.
final class WatchProcess {
    struct Line {
        var text: String
        var arrival: Date
    }

    let process = Process()
    let started: Date
    private let collector = OutputCollector()

    init(namespace: WatchNamespace, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // `ip netns exec` execs reach: the pid is reach's own.
        process.arguments = ["ip", "netns", "exec", namespace.name, try reachBinary(), "watch"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        started = Date()
        try process.run()
        let collector = collector
        let outputHandle = output.fileHandleForReading
        let errorHandle = errors.fileHandleForReading
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = outputHandle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0a) {
                    let text = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    collector.append(Line(text: text, arrival: Date()))
                }
            }
        }
        Thread.detachNewThread {
            collector.closeErrors(errorHandle.readDataToEndOfFile())
        }
    }

    var lines: [Line] { collector.snapshot }

    /// Everything written to stderr; waits (briefly) for the pipe to close.
    var standardError: String {
        let deadline = Date().addingTimeInterval(2)
        while collector.errorText == nil && Date() < deadline { usleep(1_000) }
        return collector.errorText ?? ""
    }

    /// Waits until at least `count` lines arrived; returns them all (maybe fewer, on timeout).
    @discardableResult
    func waitForLines(_ count: Int, timeout: TimeInterval = 2) -> [Line] {
        let deadline = Date().addingTimeInterval(timeout)
        while lines.count < count && Date() < deadline { usleep(2_000) }
        return lines
    }

    /// Waits for the process to end; its status, or nil if it is still running.
    func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// The sum of voluntary context switches over all of the process's threads.
    func voluntaryContextSwitches() throws -> Int {
        let taskDirectory = "/proc/\(process.processIdentifier)/task"
        var total = 0
        for task in try FileManager.default.contentsOfDirectory(atPath: taskDirectory) {
            let status = try String(contentsOfFile: "\(taskDirectory)/\(task)/status", encoding: .utf8)
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                total += Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        return total
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

extension WatchProcess.Line {
    /// The state part of a text line: after the timestamp, before "   was:".
    var state: String {
        let afterTime = text.split(separator: " ", maxSplits: 1).last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
        return afterTime.components(separatedBy: "   was: ")[0]
    }

    /// The state without its label ("IPv4: "), as "was:" repeats it.
    var description: String {
        guard let separator = state.range(of: ": ") else { return state }
        return String(state[separator.upperBound...])
    }

    /// What the line says the state was before ("" for an initial line).
    var previous: String {
        let parts = text.components(separatedBy: "   was: ")
        return parts.count > 1 ? parts[1] : ""
    }
}

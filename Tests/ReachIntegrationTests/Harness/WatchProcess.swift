#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

// What the watch tests add to the lab harness: a long-running `reach watch` whose stdout
// lines are stamped as they arrive, and `ip` given as one string of words.

extension Namespace {
    /// `ip -n NAME <words>`, which must succeed: `try client.ip(words: "link set v1 down")`.
    func ip(words command: String) throws {
        try Subprocess.check(["ip", "-n", name] + command.split(separator: " ").map(String.init))
    }

    /// `ip -n NAME -batch FILE`: many changes as fast as iproute2 can send them.
    func ipBatch(_ lines: [String], lab: NetworkLab) throws {
        let path = try lab.script("\(name).batch", lines.joined(separator: "\n") + "\n")
        try Subprocess.check(["ip", "-n", name, "-batch", path])
    }

    /// Writes /etc/netns/NAME/FILE, which `ip netns exec` mounts over /etc/FILE (the lab
    /// removes the directory); returns its path.
    @discardableResult
    func etcFile(_ file: String, _ text: String) throws -> String {
        let directory = "/etc/netns/\(name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = "\(directory)/\(file)"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }
}

/// What a watch process wrote, collected by reader threads that outlive nobody.
// @unchecked: every stored property is read and written under `lock`.
final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [WatchProcess.Line] = []
    private var errors = Data()
    private var errorsClosed = false

    func append(_ line: WatchProcess.Line) { locked { lines.append(line) } }
    func closeErrors(_ data: Data) {
        locked {
            errors = data
            errorsClosed = true
        }
    }
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

    /// `environment`: variables added to the test's own (DBUS_SYSTEM_BUS_ADDRESS).
    init(in namespace: Namespace, arguments: [String], environment extra: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // `ip netns exec` execs reach: the pid is reach's own.
        process.arguments = ["ip", "netns", "exec", namespace.name, ReachBinary.path, "watch"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.merge(extra) { $1 }
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

    /// Waits until a line after the first `skipping` satisfies `condition`: that line (nil when
    /// none came within `timeout`) and every line that had arrived. A test waits for the state
    /// it asserts, not for a count of lines: a service may show a state in two steps.
    func waitForLine(after skipping: Int = 0, timeout: TimeInterval, where condition: (Line) -> Bool) -> (line: Line?, lines: [Line]) {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let lines = self.lines
            if let line = lines.dropFirst(skipping).first(where: condition) { return (line, lines) }
            if Date() >= deadline { return (nil, lines) }
            usleep(2_000)
        }
    }

    /// Waits for the process to end; its status, or nil if it is still running.
    func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// reach's own pid (`ip netns exec` execs it).
    var pid: Int32 { process.processIdentifier }

    /// Waits until the process has made no voluntary context switch for `quiet` seconds (its
    /// start-up work done, on however loaded a machine), `timeout` at most; then an idle check
    /// measures idleness, not the tail of the start. A process that never settles is left to
    /// that check to report.
    func waitUntilSettled(quiet: TimeInterval = 0.5, timeout: TimeInterval = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var last = try voluntaryContextSwitches()
        var since = Date()
        while Date() < deadline {
            usleep(50_000)
            let now = try voluntaryContextSwitches()
            if now != last {
                (last, since) = (now, Date())
            } else if Date().timeIntervalSince(since) >= quiet {
                return
            }
        }
    }

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

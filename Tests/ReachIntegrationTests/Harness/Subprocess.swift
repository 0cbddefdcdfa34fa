#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What a finished command left behind.
struct CommandResult: CustomStringConvertible {
    var arguments: [[UInt8]]
    /// The exit status, or 128 + the signal number when a signal ended it.
    var status: Int32
    var standardOutput: [UInt8]
    var standardError: [UInt8]
    /// Wall time from spawn to exit, in seconds.
    var duration: Double
    var timedOut: Bool

    var stdout: String { String(decoding: standardOutput, as: UTF8.self) }
    var stderr: String { String(decoding: standardError, as: UTF8.self) }
    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

    var description: String {
        let command = arguments.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
        return "`\(command)` exited \(status)\(timedOut ? " (timed out)" : "") after \(String(format: "%.3f", duration)) s\n"
            + "stdout: \(stdout.debugDescription)\nstderr: \(stderr.debugDescription)"
    }
}

enum SubprocessError: Error, CustomStringConvertible {
    case spawn(String, Int32)
    case failed(CommandResult)

    var description: String {
        switch self {
        case .spawn(let command, let code): "cannot start \(command): \(String(cString: strerror(code)))"
        case .failed(let result): "command failed: \(result)"
        }
    }
}

/// Runs programs with posix_spawn: arguments as raw bytes (so tests can pass bytes that
/// are not UTF-8), both output pipes drained together, and a hard time limit.
enum Subprocess {
    /// The environment every child gets: ours, without a backtracer that could hold the
    /// pipes for a minute after a crash (measured; SWIFT_BACKTRACE in Swift's docs/Backtracing.rst).
    static let environment: [String] = {
        var variables = ProcessInfo.processInfo.environment
        variables["SWIFT_BACKTRACE"] = "enable=no"
        variables["LC_ALL"] = "C"
        return variables.map { "\($0.key)=\($0.value)" }
    }()

    /// Runs `arguments` (argv[0] looked up in PATH) to the end, or kills it at `timeout`.
    static func run(_ arguments: [[UInt8]], timeout: Double = 30) throws -> CommandResult {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard makePipe(&outPipe), makePipe(&errPipe) else {
            throw SubprocessError.spawn(describe(arguments), errno)
        }
        let started = Date()
        let pid: pid_t
        do {
            pid = try spawn(arguments, standardOutput: outPipe[1], standardError: errPipe[1])
        } catch {
            for fd in outPipe + errPipe { close(fd) }
            throw error
        }
        close(outPipe[1])
        close(errPipe[1])
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var open: [Int32] = [outPipe[0], errPipe[0]]
        var timedOut = false
        let deadline = started.addingTimeInterval(timeout)
        while !open.isEmpty {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 {
                timedOut = true
                kill(pid, SIGKILL)
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining * 1000, 1000)) + 1)
            if ready < 0 && errno == EINTR { continue }
            for entry in fds where entry.revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 65536)
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    if entry.fd == outPipe[0] { output += buffer[0..<count] } else { errors += buffer[0..<count] }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        close(outPipe[0])
        close(errPipe[0])
        let status = waitForExit(pid)
        return CommandResult(arguments: arguments, status: status, standardOutput: output, standardError: errors,
                             duration: Date().timeIntervalSince(started), timedOut: timedOut)
    }

    static func run(_ arguments: [String], timeout: Double = 30) throws -> CommandResult {
        try run(arguments.map { Array($0.utf8) }, timeout: timeout)
    }

    /// Runs a set-up command that must succeed.
    @discardableResult
    static func check(_ arguments: [String], timeout: Double = 30) throws -> CommandResult {
        let result = try run(arguments, timeout: timeout)
        guard result.status == 0, !result.timedOut else { throw SubprocessError.failed(result) }
        return result
    }

    /// Starts a long-running program with stdout and stderr going to `logPath`, stdin a pipe
    /// whose write end the caller holds (a helper that reads stdin ends when the test process does).
    static func launch(_ arguments: [String], logPath: String) throws -> (pid: pid_t, stdin: Int32) {
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw SubprocessError.spawn(logPath, errno) }
        defer { close(log) }
        var inPipe: [Int32] = [-1, -1]
        guard makePipe(&inPipe) else { throw SubprocessError.spawn(arguments.joined(separator: " "), errno) }
        defer { close(inPipe[0]) }
        let pid = try spawn(arguments.map { Array($0.utf8) }, standardInput: inPipe[0], standardOutput: log, standardError: log)
        return (pid, inPipe[1])
    }

    /// Waits for a child to end; returns its exit status, or 128 + signal.
    @discardableResult
    static func waitForExit(_ pid: pid_t) -> Int32 {
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }

    /// Whether a child has exited (reaping it if so).
    static func hasExited(_ pid: pid_t) -> Bool {
        var raw: Int32 = 0
        return waitpid(pid, &raw, WNOHANG) == pid
    }

    private static func spawn(_ arguments: [[UInt8]], standardInput: Int32? = nil,
                              standardOutput: Int32, standardError: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput {
            posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)

        // argv and envp as C strings built from raw bytes, freed after the spawn.
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map(duplicate) + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { duplicate(Array($0.utf8)) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawnp(&pid, argv[0]!, &actions, nil, argv, envp)
        guard code == 0 else { throw SubprocessError.spawn(describe(arguments), code) }
        return pid
    }

    /// A pipe whose ends close on exec (only the dup2'd copies reach a child).
    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return true
    }

    private static func duplicate(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
        let memory = malloc(bytes.count + 1)!.assumingMemoryBound(to: CChar.self)
        for (index, byte) in bytes.enumerated() { memory[index] = CChar(bitPattern: byte) }
        memory[bytes.count] = 0
        return memory
    }

    private static func describe(_ arguments: [[UInt8]]) -> String {
        arguments.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
    }
}

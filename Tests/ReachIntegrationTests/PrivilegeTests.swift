#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// What reach may do to the system it runs on (docs/HARDENING.md): with `cap_net_raw+p` it holds no
/// capability, in any thread, once its ICMP sockets are open; and no command writes a file
/// or starts a program — checked under strace, every command, through every path.
final class PrivilegeTests: NamespaceTestCase {
    override class var labPrefix: String { "rch-harden-" }

    private var net: ChainTopology!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools(["strace", "setcap", "setpriv", "dnsmasq", "python3"])
        // These are facts about the binary people run. A sanitizer's runtime changes them: it
        // starts a thread of its own before main (ThreadSanitizer: it keeps the capabilities),
        // writes /tmp/tsan.rodata.PID, and LeakSanitizer cannot run under strace (a
        // file-capability binary ignores ASAN_OPTIONS, so it cannot be turned off there).
        if let sanitizer = ProcessInfo.processInfo.environment["REACH_SANITIZER"] {
            throw XCTSkip("reach is built with --sanitize=\(sanitizer): privilege facts are checked by make test")
        }
        net = try ChainTopology(lab: lab)
        _ = try lab.startHostileHTTPServer(in: net.far, address: "198.18.1.2")
        _ = try lab.startDNSMasq(
            in: net.client, address: "127.0.0.1", records: ["far.reach.test": ["198.18.1.2", "2001:db8:1::2"]],
            nonexistent: ["missing.reach.test"])
        try net.client.useResolver(["127.0.0.1"], options: "options timeout:1 attempts:1")
    }

    // MARK: - No files written, no programs started

    /// Syscalls that start a program or change the file system, and the opens (flags decide).
    static let watched = [
        "execve", "execveat", "fork", "vfork", "clone", "clone3", "open", "openat", "openat2", "creat",
        "truncate", "rename", "renameat", "renameat2", "unlink", "unlinkat", "mkdir", "mkdirat", "rmdir",
        "link", "linkat", "symlink", "symlinkat", "chmod", "fchmodat", "chown", "fchownat", "lchown",
        "mknod", "mknodat",
    ]

    /// Every command, each through its main paths: evaluation, probes of every kind, name
    /// resolution (found, not found), watch, ping over both families and by name, bad input, help.
    static let commands: [[String]] = [
        ["status"],
        ["status", "--json", "--flags"],
        ["status", "--probe", "icmp:198.18.1.2", "--probe", "tcp:198.18.1.2:8080",
         "--probe", "http://far.reach.test:8080/generate_204", "--probe-timeout", "2s"],
        ["status", "--probe", "http://198.18.1.2:8080/garbage", "--probe-timeout", "2s"],
        ["addr", "198.18.1.2", "--json"],
        ["addr", "2001:db8:1::2"],
        ["host", "far.reach.test", "--json"],
        ["host", "missing.reach.test"],
        ["watch", "--timeout", "1s"],
        ["watch", "far.reach.test", "--timeout", "1s", "--json"],
        ["ping", "-c", "3", "-i", "0.2", "198.18.1.2"],
        ["ping", "-6", "-c", "2", "-i", "0.2", "--json", "2001:db8:1::2"],
        ["ping", "-c", "1", "-W", "1", "far.reach.test"],
        ["ping", "-c", "2", "-i", "0.2", "-W", "1", "198.18.1.3"],
        ["host", "db internal"],
        ["ping", "-c", "0", "198.18.1.2"],
        ["--help"],
        ["--version"],
    ]

    func testNoCommandWritesAFileOrStartsAProgram() throws {
        let trace = lab.directory + "/strace.txt"
        for arguments in Self.commands {
            let shown = arguments.joined(separator: " ")
            let result = try net.client.exec(
                ["strace", "-f", "-qq", "-o", trace, "-e", "trace=" + Self.watched.joined(separator: ","), ReachBinary.path]
                    + arguments, timeout: 20)
            XCTAssertFalse(result.timedOut, "\(shown)\n\(result)")
            XCTAssertTrue([0, 1, 2, 64].contains(result.status), "\(shown): exit \(result.status)\n\(result)")
            let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
            let calls = lines.compactMap(Self.call)
            XCTAssertFalse(calls.isEmpty, "\(shown): strace saw nothing\n\(lines.joined(separator: "\n"))")
            let programs = calls.filter { ["execve", "execveat"].contains($0.name) }
            XCTAssertEqual(programs.count, 1, "\(shown): reach's own execve only\n\(programs.map(\.line).joined(separator: "\n"))")
            for call in calls {
                XCTAssertNil(Self.violation(call), "\(shown): \(Self.violation(call) ?? "")\n\(call.line)")
            }
        }
    }

    private struct Call {
        var name: String
        var line: String
    }

    /// "1234 openat(AT_FDCWD, ...) = 3" -> openat; resumed halves and signals are no calls.
    private static func call(_ line: String) -> Call? {
        // strace pads the pid: "1234  openat(".
        let words = line.split(separator: " ", maxSplits: 1)
        guard words.count == 2 else { return nil }
        let rest = words[1].drop { $0 == " " }
        guard let open = rest.firstIndex(of: "(") else { return nil }
        let name = String(rest[..<open])
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return Call(name: name, line: line)
    }

    private static func violation(_ call: Call) -> String? {
        switch call.name {
        case "execve", "execveat":
            return nil // counted above
        case "clone", "clone3":
            return call.line.contains("CLONE_THREAD") ? nil : "a new process, not a thread"
        case "open", "openat", "openat2":
            let writing = ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"].filter { call.line.contains($0) }
            return writing.isEmpty ? nil : "opened for writing (\(writing.joined(separator: ", ")))"
        default:
            return "\(call.name): changes the file system or starts a program"
        }
    }

    // MARK: - Capabilities

    /// `status --probe icmp:... --probe http://...` as nobody with `cap_net_raw+p`: while the
    /// probes run (an ICMP probe to a host that drops echo requests, an HTTP probe whose
    /// server takes 2 s), every thread of reach has empty capability sets; the ICMP probe did
    /// open its raw socket (it ends without a reply, not with exit 77).
    func testProbesHoldNoCapabilityInAnyThreadOnceTheirSocketsAreOpen() throws {
        let binary = try binaryForOtherUsers()
        try Subprocess.check(["setcap", "cap_net_raw+p", binary])
        let process = try lab.launch(
            Self.asNobody + [binary, "status", "-4", "--json", "--probe", "icmp:198.18.1.3",
                             "--probe", "http://198.18.1.2:8080/slow", "--probe-timeout", "3s"],
            in: net.client, label: "status-probes")
        let threads = try capabilitiesWhileRunning(process.pid, settle: 0.7)
        XCTAssertGreaterThanOrEqual(threads.count, 3, "the main thread and one per probe: \(threads)")
        for (task, sets) in threads {
            for line in sets { XCTAssertTrue(line.hasSuffix("0000000000000000"), "thread \(task): \(line)") }
        }
        XCTAssertEqual(process.waitForExit(), 0, process.log)
        XCTAssertTrue(process.log.contains("no echo reply"), "the ICMP probe ran on its raw socket: \(process.log)")
    }

    /// `reach ping` as nobody with `cap_net_raw+p`, under strace: CAP_NET_RAW is raised only
    /// around the socket calls, and the last capset, after the raw socket is open, empties
    /// every set.
    func testPingDropsEveryCapabilityAfterOpeningItsRawSocket() throws {
        let binary = try binaryForOtherUsers()
        try Subprocess.check(["setcap", "cap_net_raw+p", binary])
        let trace = lab.directory + "/capset.txt"
        // strace -u runs the command as nobody with its file capabilities (the tracer is root).
        let result = try net.client.exec(
            ["strace", "-f", "-qq", "-u", "nobody", "-o", trace, "-e", "trace=capset,socket", binary,
             "ping", "-c", "2", "-i", "0.2", "198.18.1.2"])
        XCTAssertEqual(result.status, 0, "\(result)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
        guard let raw = lines.lastIndex(where: { $0.contains("socket(AF_INET, SOCK_RAW") && !$0.contains("= -1") }) else {
            return XCTFail("no raw socket opened:\n\(lines.joined(separator: "\n"))")
        }
        let after = lines[(raw + 1)...].filter { $0.contains("capset(") }
        XCTAssertEqual(after.last?.contains("{effective=0, permitted=0, inheritable=0}"), true, lines.joined(separator: "\n"))
        XCTAssertFalse(lines[(raw + 1)...].contains { $0.contains("socket(") }, "no socket after the drop")
        for line in lines where line.contains("capset(") {
            let raised = line.components(separatedBy: "effective=").last ?? ""
            XCTAssertTrue(raised.hasPrefix("0") || raised.hasPrefix("1<<CAP_NET_RAW,"), "only CAP_NET_RAW ever: \(line)")
        }
    }

    /// A capability change the kernel refuses stops the run, as iputils ping_common.c stops
    /// (`ping: cap_set_proc: Operation not permitted`): reach says which call failed, exits 71
    /// (EX_OSERR) and sends nothing. The refusal is injected by strace (`inject=capset:error=`,
    /// strace(1)): first on the narrowing at start, then on the final drop, whose position is
    /// counted in an untouched run of the same command.
    func testACapabilityChangeTheKernelRefusesStopsTheRun() throws {
        let commands: [[String]] = [
            ["ping", "-c", "1", "198.18.1.2"],
            ["ping", "-c", "1", "198.18.1.2", "198.18.1.3"],
            ["status", "--probe", "icmp:198.18.1.2", "--probe-timeout", "2s"],
            ["watch", "--probe", "icmp:198.18.1.2", "--timeout", "1s"],
        ]
        let refusal = "reach: system failure: cap_set_proc: Operation not permitted\n"
        for arguments in commands {
            let shown = arguments.joined(separator: " ")
            let first = try refusingCapset(at: "1", [ReachBinary.path] + arguments)
            XCTAssertEqual(first.status, 71, "\(shown), the first capset refused\n\(first)")
            XCTAssertEqual(first.stderr, refusal, shown)
            XCTAssertEqual(first.stdout, "", "\(shown): nothing half-written")
        }
        // The main thread's last change, the drop once the ICMP sockets are open.
        for arguments in commands.prefix(3) {
            let shown = arguments.joined(separator: " ")
            let count = try capsetCount([ReachBinary.path] + arguments)
            XCTAssertGreaterThanOrEqual(count, 2, "\(shown): narrowed, then dropped")
            let last = try refusingCapset(at: String(count), [ReachBinary.path] + arguments)
            XCTAssertEqual(last.status, 71, "\(shown), capset \(count) of \(count) refused\n\(last)")
            XCTAssertTrue(last.stderr.hasSuffix(refusal), "\(shown): \(last.stderr)")
        }
        // iputils beside it, under the same refusal.
        let iputils = try refusingCapset(at: "1", ["ping", "-c", "1", "198.18.1.2"])
        XCTAssertNotEqual(iputils.status, 0, "\(iputils)")
        XCTAssertTrue(iputils.stderr.contains("cap_set_proc: Operation not permitted"), "\(iputils)")
        // The exporter narrows its set before it listens: refused, it does not start.
        let exporter = URL(fileURLWithPath: ReachBinary.path).deletingLastPathComponent().appendingPathComponent("reach-exporter").path
        let started = try refusingCapset(at: "1", [exporter, "--listen", "127.0.0.1:0", "--allow", "127.0.0.1"])
        XCTAssertEqual(started.status, 71, "\(started)")
        XCTAssertEqual(started.stderr, "reach-exporter: system failure: cap_set_proc: Operation not permitted\n")
    }

    /// Runs `command` in the client namespace with capset call number `when` (strace's
    /// syntax: "1", "3") failing with EPERM.
    private func refusingCapset(at when: String, _ command: [String]) throws -> CommandResult {
        try net.client.exec(
            ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=capset", "-e", "inject=capset:error=EPERM:when=\(when)"]
                + command, timeout: 20)
    }

    /// How many capset calls the main thread of `command` makes when none is refused (strace
    /// counts injections per thread; each probe thread drops its own set).
    private func capsetCount(_ command: [String]) throws -> Int {
        let trace = lab.directory + "/capset-count.txt"
        let result = try net.client.exec(["strace", "-f", "-qq", "-o", trace, "-e", "trace=capset"] + command, timeout: 20)
        XCTAssertFalse(result.timedOut, "\(result)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let pid = { (line: Substring) in line.split(separator: " ").first }
        guard let main = lines.first.flatMap(pid) else { return 0 }
        return lines.filter { pid($0) == main && $0.contains("capset(") }.count
    }

    /// Reads CapInh/CapPrm/CapEff/CapAmb of every thread once reach runs (setpriv and
    /// `ip netns exec` exec in place) and has had `settle` seconds to open its sockets.
    private func capabilitiesWhileRunning(_ pid: pid_t, settle: Double) throws -> [String: [String]] {
        for _ in 0..<200 {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            if status.split(separator: "\n").first(where: { $0.hasPrefix("Name:") })?.hasSuffix("reach") == true { break }
            usleep(10_000)
        }
        usleep(useconds_t(settle * 1_000_000))
        var threads: [String: [String]] = [:]
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            let status = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
            threads[task] = status.split(separator: "\n").map(String.init).filter {
                ["CapInh:", "CapPrm:", "CapEff:", "CapAmb:"].contains(String($0.prefix(7)))
            }
            XCTAssertEqual(threads[task]?.count, 4, status)
        }
        return threads
    }
}

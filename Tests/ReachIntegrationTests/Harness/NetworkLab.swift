#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// Network namespaces, links and helper processes made for one test, all removed by
/// `tearDown()` — which the test registers before building anything, so it runs on failure too.
/// Names are `<prefix><pid>-<n>-<role>`: unique per process, and a later run can tell
/// (by the pid) which leftovers of a crashed run are safe to remove.
final class NetworkLab {
    // nonisolated(unsafe): labs are made by the XCTest main thread only, one test at a time.
    nonisolated(unsafe) private static var counter = 0

    /// `rch-integ-` by default; another suite reusing the harness passes its own.
    let prefix: String
    /// `<prefix><pid>-<n>`, the prefix of every namespace this lab makes.
    let tag: String
    /// A private directory for logs and helper scripts.
    let directory: String
    private(set) var namespaces: [Namespace] = []
    private var processes: [BackgroundProcess] = []

    init(prefix: String = "rch-integ-") throws {
        Self.counter += 1
        self.prefix = prefix
        tag = "\(prefix)\(getpid())-\(Self.counter)"
        Self.removeLeftovers(prefix: prefix)
        var template = Array("/tmp/\(tag)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SubprocessError.spawn("mkdtemp", errno) }
        directory = String(cString: made)
    }

    /// A fresh namespace with lo up and IPv6 duplicate address detection off (addresses are
    /// usable at once, link-local ones too).
    func namespace(_ role: String) throws -> Namespace {
        let namespace = Namespace(name: "\(tag)-\(role)")
        try Subprocess.check(["ip", "netns", "add", namespace.name])
        namespaces.append(namespace)
        try namespace.sysctl([
            "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0",
            "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1",
        ])
        try namespace.ip("link", "set", "lo", "up")
        return namespace
    }

    /// A veth pair: `name` in `namespace`, `peerName` in `peer`, both admin up.
    func veth(_ name: String, in namespace: Namespace, peer peerName: String, in peer: Namespace) throws {
        try Subprocess.check(["ip", "link", "add", name, "netns", namespace.name,
                              "type", "veth", "peer", "name", peerName, "netns", peer.name])
        try namespace.ip("link", "set", name, "up")
        try peer.ip("link", "set", peerName, "up")
    }

    /// Starts a helper inside `namespace`; it is stopped by `tearDown()`.
    func launch(_ arguments: [String], in namespace: Namespace, label: String) throws -> BackgroundProcess {
        let logPath = "\(directory)/\(label).log"
        let started = try Subprocess.launch(["ip", "netns", "exec", namespace.name] + arguments, logPath: logPath)
        let process = BackgroundProcess(pid: started.pid, stdin: started.stdin, logPath: logPath, label: label)
        processes.append(process)
        return process
    }

    /// Starts one of the Python helpers of `HelperScript.directory` with python3 inside
    /// `namespace`; it is stopped by `tearDown()`.
    func launchHelper(_ name: String, _ arguments: [String], in namespace: Namespace, label: String) throws -> BackgroundProcess {
        try launch(["python3", try HelperScript.path(name)] + arguments, in: namespace, label: label)
    }

    /// Writes a file (an nftables ruleset, a batch of commands) into the lab directory and
    /// returns its path.
    func script(_ name: String, _ text: String) throws -> String {
        let path = "\(directory)/\(name)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Loads an nftables ruleset into `namespace` (`nft -f`); `name` names its file.
    func nft(in namespace: Namespace, name: String, _ rules: String) throws {
        let path = try script("\(namespace.name)-\(name).nft", rules)
        try Subprocess.check(["ip", "netns", "exec", namespace.name, "nft", "-f", path])
    }

    /// Stops every helper, deletes every namespace (their links go with them) and the
    /// resolver files, and the lab directory. Safe to call twice.
    func tearDown() {
        for process in processes { process.stop() }
        processes.removeAll()
        for namespace in namespaces.reversed() { Self.remove(namespace: namespace.name) }
        namespaces.removeAll()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Kills what still runs in a namespace, deletes it and its /etc/netns entry.
    private static func remove(namespace name: String) {
        if let pids = try? Subprocess.run(["ip", "netns", "pids", name]) {
            for line in pids.stdoutLines { if let pid = pid_t(line) { kill(pid, SIGKILL) } }
        }
        _ = try? Subprocess.run(["ip", "netns", "delete", name])
        try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
    }

    /// Namespaces of earlier runs of this suite whose process is gone (a crash, a kill -9).
    private static func removeLeftovers(prefix: String) {
        guard let list = try? Subprocess.run(["ip", "netns", "list"]) else { return }
        for line in list.stdoutLines {
            let name = String(line.split(separator: " ").first ?? "")
            guard name.hasPrefix(prefix) else { continue }
            let owner = name.dropFirst(prefix.count).split(separator: "-").first.flatMap { pid_t($0) }
            guard let owner, owner != getpid(), kill(owner, 0) != 0, errno == ESRCH else { continue }
            remove(namespace: name)
        }
    }
}

/// One network namespace made by a `NetworkLab`.
struct Namespace: CustomStringConvertible {
    let name: String
    var description: String { name }

    /// `ip -n NAME ...`, which must succeed.
    @discardableResult
    func ip(_ arguments: String...) throws -> CommandResult {
        try Subprocess.check(["ip", "-n", name] + arguments)
    }

    /// `ip netns exec NAME ...`, whatever its outcome.
    func exec(_ arguments: [String], timeout: Double = 30) throws -> CommandResult {
        try Subprocess.run(["ip", "netns", "exec", name] + arguments, timeout: timeout)
    }

    func sysctl(_ settings: [String]) throws {
        try Subprocess.check(["ip", "netns", "exec", name, "sysctl", "-q", "-w"] + settings)
    }

    /// Points the resolver of `ip netns exec NAME` at `nameservers`: it bind-mounts
    /// /etc/netns/NAME/resolv.conf over /etc/resolv.conf (ip-netns(8); bind_etc in iproute2 lib/namespace.c).
    func useResolver(_ nameservers: [String], options: String = "options timeout:5 attempts:2") throws {
        let directory = "/etc/netns/\(name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let text = nameservers.map { "nameserver \($0)\n" }.joined() + options + "\n"
        try text.write(toFile: "\(directory)/resolv.conf", atomically: true, encoding: .utf8)
    }

    /// The link as `ip -j link show` gives it.
    func link(_ link: String) throws -> [String: Any] {
        let result = try Subprocess.check(["ip", "-n", name, "-j", "link", "show", "dev", link])
        let decoded = try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [[String: Any]]
        guard let first = decoded?.first else { throw SubprocessError.failed(result) }
        return first
    }

    /// Waits until the link's operstate is `state` (veth carrier and tun attach are not instant).
    func waitFor(link: String, operstate state: String, timeout: Double = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var seen = ""
        repeat {
            seen = try self.link(link)["operstate"] as? String ?? ""
            if seen == state { return }
            usleep(10_000)
        } while Date() < deadline
        XCTFail("\(link) in \(name) stayed \(seen), never \(state)")
        throw SubprocessError.spawn("wait for \(link) \(state)", ETIMEDOUT)
    }

    /// Waits until `ping` from here gets a reply from every target: neighbour discovery and
    /// routes settle asynchronously after a topology is built or a link comes back.
    func waitForPingReplies(from targets: [String], what: String) throws {
        for _ in 0..<100 {
            if try targets.allSatisfy({ try exec(["ping", "-c1", "-W1", "-q", $0]).status == 0 }) { return }
            usleep(50_000)
        }
        throw HarnessError("\(what) never answered from \(name)")
    }

    /// An IPv4 ICMP counter of this namespace's stack ("OutDestUnreachs"), from
    /// /proc/net/snmp: two `Icmp:` lines, the names, then the values.
    func icmpCounter(_ field: String) throws -> Int {
        let lines = try Subprocess.check(["ip", "netns", "exec", name, "cat", "/proc/net/snmp"]).stdoutLines
        let icmp = lines.filter { $0.hasPrefix("Icmp: ") }.map { $0.split(separator: " ").map(String.init) }
        guard icmp.count == 2, let index = icmp[0].firstIndex(of: field), index < icmp[1].count, let value = Int(icmp[1][index]) else {
            throw HarnessError("no ICMP counter \(field) in /proc/net/snmp of \(name)")
        }
        return value
    }

    /// The first IPv6 link-local address of a link.
    func linkLocalAddress(of link: String) throws -> String {
        let result = try Subprocess.check(["ip", "-n", name, "-j", "-6", "addr", "show", "dev", link, "scope", "link"])
        let decoded = try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [[String: Any]]
        let addresses = decoded?.first?["addr_info"] as? [[String: Any]] ?? []
        guard let local = addresses.compactMap({ $0["local"] as? String }).first else { throw SubprocessError.failed(result) }
        return local
    }
}

/// A helper process started by a lab (dnsmasq, a tun holder, a silent DNS server).
final class BackgroundProcess {
    let pid: pid_t
    let label: String
    let logPath: String
    private var stdin: Int32
    private var stopped = false

    init(pid: pid_t, stdin: Int32, logPath: String, label: String) {
        self.pid = pid
        self.stdin = stdin
        self.logPath = logPath
        self.label = label
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Waits until the helper's log contains `marker` (its "ready" line); fails if it exits first.
    func waitUntilReady(marker: String, timeout: Double = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if log.contains(marker) { return }
            if Subprocess.hasExited(pid) {
                stopped = true
                throw HarnessError("\(label) exited before it was ready; log:\n\(log)")
            }
            usleep(10_000)
        } while Date() < deadline
        throw HarnessError("\(label) not ready after \(timeout) s; log:\n\(log)")
    }

    /// Waits for the process to end by itself; its exit status, or 128 + signal.
    func waitForExit() -> Int32 {
        if stopped { return -1 }
        stopped = true
        if stdin >= 0 {
            close(stdin)
            stdin = -1
        }
        return Subprocess.waitForExit(pid)
    }

    /// SIGTERM, then SIGKILL if it lingers; reaps it.
    func stop() {
        guard !stopped else { return }
        stopped = true
        if stdin >= 0 {
            close(stdin)
            stdin = -1
        }
        kill(pid, SIGTERM)
        for _ in 0..<100 {
            if Subprocess.hasExited(pid) { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        Subprocess.waitForExit(pid)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

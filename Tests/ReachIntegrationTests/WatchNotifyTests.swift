#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// The service manager's end of sd_notify(3), for the tests: an AF_UNIX datagram socket
/// bound to a file, each datagram read as its newline-separated assignments.
final class NotifyListener {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        unlink(path)
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket(AF_UNIX, SOCK_DGRAM): errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw HarnessError("bind \(path): errno \(errno)") }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// The datagrams that arrive within `timeout` (those already queued first), each as its
    /// assignments; waits no longer once one came and `timeout` is 0.
    func datagrams(waiting timeout: TimeInterval) -> [[String]] {
        var received: [[String]] = []
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = max(0, Int32(deadline.timeIntervalSinceNow * 1000))
            guard poll(&entry, 1, left) == 1 else { return received }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { return received }
            received.append(String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n").map(String.init))
        }
    }
}

/// `reach watch --notify` against a listening datagram socket, as systemd's for a unit of
/// Type=notify: STATUS= at each state, READY=1 once, when --until holds, never before.
final class WatchNotifyTests: WatchTestCase {
    private func listener() throws -> NotifyListener {
        try NotifyListener(path: "\(lab.directory)/notify")
    }

    /// `reach watch ARGUMENTS` in the namespace with $NOTIFY_SOCKET set, to its end.
    private func watchToEnd(_ arguments: [String], notifySocket: String) throws -> CommandResult {
        try namespace.exec(["env", "NOTIFY_SOCKET=\(notifySocket)", ReachBinary.path, "watch"] + arguments, timeout: 20)
    }

    func testReadyComesOnceAfterTheRouteNeverBefore() throws {
        let listener = try listener()
        try namespace.ip(words: "route del default")
        let watch = try WatchProcess(
            in: namespace, arguments: ["-4", "--until", "reachable", "--notify"], environment: ["NOTIFY_SOCKET": listener.path])
        XCTAssertEqual(watch.waitForLines(1).count, 1)
        // The state without a route: its STATUS=, and for a second nothing more.
        XCTAssertEqual(listener.datagrams(waiting: 1), [["STATUS=IPv4: not reachable (no route)"]])
        try namespace.ip(words: "route add default via 198.18.0.1")
        XCTAssertEqual(watch.waitForExit(timeout: 3), 0, watch.standardError)
        XCTAssertEqual(listener.datagrams(waiting: 0.5), [
            ["STATUS=IPv4: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2"],
            ["READY=1"],
        ])
        XCTAssertEqual(watch.standardError, "")
    }

    func testWithoutUntilReadyComesWithTheFirstStateOnly() throws {
        let listener = try listener()
        let watch = try WatchProcess(in: namespace, arguments: ["-4", "--notify"], environment: ["NOTIFY_SOCKET": listener.path])
        defer { watch.signal(SIGTERM) }
        XCTAssertEqual(listener.datagrams(waiting: 1), [
            ["STATUS=IPv4: reachable via virtual v0, gateway 198.18.0.1, source 198.18.0.2", "READY=1"]
        ])
        try namespace.ip(words: "link set v1 down")
        XCTAssertEqual(listener.datagrams(waiting: 1), [["STATUS=IPv4: not reachable (no carrier on v0)"]])
    }

    func testAnUnusableNotifySocketIsOneLineAndExit64() throws {
        let result = try watchToEnd(["-4", "--notify", "--timeout", "1s"], notifySocket: "vsock:2:1")
        XCTAssertEqual(result.status, 64, "\(result)")
        XCTAssertEqual(result.stderrLines, ["reach: --notify: NOTIFY_SOCKET 'vsock:2:1' is neither an absolute path nor an @abstract name"])
        XCTAssertEqual(result.stdout, "")
    }

    func testAManagerThatIsGoneIsSaidOnceAndTheWatchGoesOn() throws {
        let result = try watchToEnd(["-4", "--notify", "--until", "reachable"], notifySocket: "\(lab.directory)/nobody-listens")
        XCTAssertEqual(result.status, 0, "\(result)")
        XCTAssertEqual(result.stderrLines, ["reach: --notify: sendto: No such file or directory"])
        XCTAssertEqual(result.stdoutLines.count, 1)
    }
}

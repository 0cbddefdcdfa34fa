#if canImport(Glibc)
import Glibc
#endif
import CTestSupport
import Foundation

/// A network namespace of a unit test's own, its loopback up, for sockets that must see no
/// other process's packets: a raw ICMP socket on the host's loopback reads every echo reply
/// there, another test run's or a user's `ping localhost` too.
///
/// Sockets are made inside it by `run`, which moves only the calling thread in and back
/// (setns(2) acts on the calling thread); a socket stays in the namespace it was made in
/// (network_namespaces(7)). Needs CAP_SYS_ADMIN: `make()` is nil without it.
public final class PrivateNetworkNamespace: @unchecked Sendable {
    /// The namespace's name under /run/netns (`ip netns`), so that `ip -n` reaches it.
    public let name: String
    // Read-only after init; setns takes it from any thread.
    private let descriptor: Int32
    /// The name was taken away already (tearDown, then deinit): not asked of `ip` twice.
    private var removed = false

    /// A new namespace with loopback up, or nil when this process may not make one (not root).
    public static func make() -> PrivateNetworkNamespace? {
        guard geteuid() == 0 else { return nil }
        return try? PrivateNetworkNamespace(name: "rch-unit-\(getpid())")
    }

    private init(name: String) throws {
        self.name = name
        // One left by a test run that was killed: its name is this pid's now.
        _ = try? Self.ip(["netns", "delete", name])
        try Self.ip(["netns", "add", name])
        try Self.ip(["-n", name, "link", "set", "lo", "up"])
        descriptor = open("/run/netns/\(name)", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            _ = try? Self.ip(["netns", "delete", name])
            throw Failure(what: "open /run/netns/\(name): errno \(errno)")
        }
    }

    deinit {
        close(descriptor)
        remove()
    }

    /// Takes the name away (`ip netns delete`): the namespace itself ends with its last
    /// socket. A test calls it in tearDown, since a pinger's transport opener, which holds
    /// this object, may outlive the test.
    public func remove() {
        guard !removed else { return }
        removed = true
        _ = try? Self.ip(["netns", "delete", name])
    }

    /// `body` on this thread inside the namespace; the thread comes back whatever happens.
    public func run<T>(_ body: () throws -> T) throws -> T {
        let home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
        guard home >= 0 else { throw Failure(what: "open /proc/thread-self/ns/net: errno \(errno)") }
        defer { close(home) }
        guard setns(descriptor, Int32(CLONE_NEWNET)) == 0 else { throw Failure(what: "setns into \(name): errno \(errno)") }
        defer {
            // A thread that cannot come back must not run anything else.
            if setns(home, Int32(CLONE_NEWNET)) != 0 { fatalError("setns back from \(name): errno \(errno)") }
        }
        return try body()
    }

    public struct Failure: Error, CustomStringConvertible {
        public let what: String
        public var description: String { what }
    }

    private static func ip(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(what: "ip \(arguments.joined(separator: " ")): status \(process.terminationStatus)")
        }
    }
}

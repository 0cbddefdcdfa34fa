#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import XCTest

/// A private system bus for one test: dbus-daemon listening on a unix socket *path* in the
/// lab's directory (a path, not an abstract name, so every network namespace reaches it),
/// python-dbusmock's templates on it, and reach run with DBUS_SYSTEM_BUS_ADDRESS naming it.
/// Everything it starts is stopped with the lab.
final class SystemBus {
    static let modemManager = "org.freedesktop.ModemManager1"
    static let networkManager = "org.freedesktop.NetworkManager"

    /// The unpacked python-dbusmock 0.38.1 that `scripts/install-deps.sh test` downloads
    /// into .build/dbusmock; DBUSMOCK_TREE overrides it.
    static let dbusmockTree: String = {
        if let tree = ProcessInfo.processInfo.environment["DBUSMOCK_TREE"], !tree.isEmpty { return tree }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        return root.appendingPathComponent(".build/dbusmock/python_dbusmock-0.38.1").path
    }()

    /// dbus-daemon, Debian's python3 with python3-dbus, and the dbusmock tree: skipped
    /// without them on a developer's machine, a failure in CI.
    static func require(file: StaticString = #filePath, line: UInt = #line) throws {
        var missing: [String] = []
        if access("/usr/bin/dbus-daemon", X_OK) != 0 { missing.append("dbus-daemon") }
        if access("/usr/lib/python3/dist-packages/dbus/__init__.py", R_OK) != 0 { missing.append("python3-dbus") }
        if access("\(dbusmockTree)/dbusmock/templates/modemmanager.py", R_OK) != 0 { missing.append("python-dbusmock at \(dbusmockTree)") }
        guard !missing.isEmpty else { return }
        try ContinuousIntegration.cannotRun("D-Bus tests need " + missing.joined(separator: ", ") + " (scripts/install-deps.sh test)",
                                            file: file, line: line)
    }

    let lab: NetworkLab
    let namespace: Namespace
    let socketPath: String
    var address: String { "unix:path=\(socketPath)" }
    private var mocks: [String: BackgroundProcess] = [:]

    init(lab: NetworkLab, in namespace: Namespace) throws {
        self.lab = lab
        self.namespace = namespace
        socketPath = "\(lab.directory)/system_bus_socket"
        let config = try lab.script("system-bus.conf", """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(socketPath)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_type="method_return"/>
                <allow send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="signal"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
              </policy>
            </busconfig>
            """)
        let daemon = try lab.launch(["dbus-daemon", "--nofork", "--config-file=\(config)"], in: namespace, label: "dbus-daemon")
        let deadline = Date().addingTimeInterval(5)
        while access(socketPath, F_OK) != 0 {
            guard Date() < deadline, !Subprocess.hasExited(daemon.pid) else {
                throw HarnessError("dbus-daemon did not listen on \(socketPath); log:\n\(daemon.log)")
            }
            usleep(10_000)
        }
    }

    /// Starts a python-dbusmock template (`modemmanager`, `networkmanager`) and waits for its name.
    @discardableResult
    func start(_ template: String) throws -> BackgroundProcess {
        let mock = try lab.launch(["env", "DBUS_SYSTEM_BUS_ADDRESS=\(address)", "PYTHONPATH=\(Self.dbusmockTree)",
                                   "/usr/bin/python3", "-m", "dbusmock", "--system", "--template", template],
                                  in: namespace, label: "dbusmock-\(template)-\(mocks.count)")
        mocks[template] = mock
        try control("wait-name", template == "modemmanager" ? Self.modemManager : Self.networkManager)
        return mock
    }

    /// Stops a template's mock: its name leaves the bus.
    func stop(_ template: String) {
        mocks.removeValue(forKey: template)?.stop()
    }

    /// Sends the mock SIGSTOP (`true`) or SIGCONT: a service that never replies, and back.
    func freeze(_ template: String, _ frozen: Bool) throws {
        guard let mock = mocks[template] else { throw HarnessError("no \(template) mock running") }
        kill(mock.pid, frozen ? SIGSTOP : SIGCONT)
    }

    /// Tests/ReachIntegrationTests/Helpers/dbus-mock-control.py with these words.
    @discardableResult
    func control(_ words: String...) throws -> CommandResult {
        let result = try Subprocess.run(["env", "DBUS_SYSTEM_BUS_ADDRESS=\(address)", "/usr/bin/python3",
                                         try HelperScript.path("dbus-mock-control.py")] + words, timeout: 15)
        guard result.status == 0 else { throw HarnessError("dbus-mock-control \(words): \(result)") }
        return result
    }

    /// The words that run reach in `namespace` with this bus as its system bus.
    func reachCommand(_ arguments: [String]) -> [String] {
        ["env", "DBUS_SYSTEM_BUS_ADDRESS=\(address)", ReachBinary.path] + arguments
    }
}

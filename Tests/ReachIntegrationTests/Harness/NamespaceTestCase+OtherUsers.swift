#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Running reach as `nobody`, for the permission tests of `ping` and of ICMP probes.
extension NamespaceTestCase {
    /// setpriv's words for "as nobody, with no supplementary groups" (no capabilities either).
    static let asNobody = ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups"]

    /// A binary (reach unless told) copied where `nobody` can execute it (the clone may sit
    /// under a directory other users cannot enter, such as a home directory of mode 0700);
    /// removed after the test.
    func binaryForOtherUsers(_ binary: String = ReachBinary.path) throws -> String {
        var template = Array("/tmp/\(Self.labPrefix)bin-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp: \(errno)") }
        let directory = String(cString: made)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        chmod(directory, 0o755)
        let copy = directory + "/" + (binary.split(separator: "/").last.map(String.init) ?? "reach")
        try FileManager.default.copyItem(atPath: binary, toPath: copy)
        chmod(copy, 0o755)
        return copy
    }
}

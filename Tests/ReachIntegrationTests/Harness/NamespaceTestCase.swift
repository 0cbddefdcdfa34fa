#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// A test that builds its own network: root and the tools are required (skip without them,
/// fail in CI), and the lab is torn down after the test whatever happened in it.
///
/// ```swift
/// final class PingTests: NamespaceTestCase {
///     func testReplies() throws {
///         let net = try LabTopology(lab: lab)            // or lab.namespace / lab.veth by hand
///         try net.router.sysctl(["net.ipv4.icmp_ratelimit=0"])
///         let result = try reach(["ping", "-c", "1", "198.18.1.2"], in: net.client)
///         XCTAssertEqual(result.status, 0)
///     }
/// }
/// ```
class NamespaceTestCase: XCTestCase {
    private(set) var lab: NetworkLab!

    /// The namespace name prefix of this suite's labs (one per helper or suite, so suites
    /// running at once never touch each other's leftovers).
    class var labPrefix: String { "rch-integ-" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Privilege.requireRootAndTools()
        try ReachBinary.requireBuilt()
        let lab = try NetworkLab(prefix: Self.labPrefix)
        self.lab = lab
        addTeardownBlock { lab.tearDown() }
    }

    /// Runs reach in `namespace`; checks the run left nothing on stderr and did not time out.
    func reach(_ arguments: [String], in namespace: Namespace, file: StaticString = #filePath, line: UInt = #line) throws -> CommandResult {
        let result = try ReachBinary.run(arguments, in: namespace)
        XCTAssertFalse(result.timedOut, "\(result)", file: file, line: line)
        XCTAssertEqual(result.stderr, "", "nothing on stderr: \(result)", file: file, line: line)
        return result
    }

    /// `reach <arguments> --json` in `namespace`, decoded and checked against the schema,
    /// with its exit status compared with `status` (nil: any verdict, checked by the caller).
    func reachJSON(_ arguments: [String], in namespace: Namespace, status: Int32?,
                   file: StaticString = #filePath, line: UInt = #line) throws -> ReachJSON {
        let result = try reach(arguments + ["--json"], in: namespace, file: file, line: line)
        if let status { XCTAssertEqual(result.status, status, "exit status: \(result)", file: file, line: line) }
        return try ReachJSON.decode(result, file: file, line: line)
    }
}

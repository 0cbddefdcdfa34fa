import Foundation

/// The Python helpers the tests start inside their namespaces: one file each in
/// Tests/ReachIntegrationTests/Helpers, run with python3 (`NetworkLab.launchHelper`).
enum HelperScript {
    /// The Helpers directory, found from this file's path at build time: `swift test` in a
    /// fresh clone runs them where they were checked out.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Harness
        .deletingLastPathComponent()  // ReachIntegrationTests
        .appendingPathComponent("Helpers").path

    /// The path of the helper `name`; an error naming it when it is not there (the tree
    /// moved after the build: build again).
    static func path(_ name: String) throws -> String {
        let path = "\(directory)/\(name)"
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw HarnessError("no test helper \(path): the tests look for it beside their sources; rebuild after moving the tree")
        }
        return path
    }
}

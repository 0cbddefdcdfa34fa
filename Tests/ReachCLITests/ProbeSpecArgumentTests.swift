import XCTest

@testable import ReachCLI
import ReachCommandLine

final class ProbeSpecArgumentTests: XCTestCase {
    /// A long probe spec is cut in its quote, not at the end of the line: the reason stays.
    func testErrorKeepsItsReasonAfterALongSpec() {
        let spec = "http://" + String(repeating: "a", count: 300) + " b/"
        XCTAssertThrowsError(try ProbeSpecArgument.parse(spec)) { error in
            let message = (error as? UsageError)?.message ?? ""
            XCTAssertTrue(message.hasSuffix("...' has an invalid host"), message)
            XCTAssertLessThan(message.count, 140, message)
        }
        XCTAssertThrowsError(try ProbeSpecArgument.parse("tcp:db\n:80")) { error in
            XCTAssertEqual((error as? UsageError)?.message, #"probe 'tcp:db\x0a:80' has an invalid host"#)
        }
    }
}

import Foundation
import XCTest

/// A `--json` stream: one JSON object a line (ping, watch). A line that is not a JSON object
/// fails the test where it is read: malformed output must not pass by being dropped.
enum JSONLines {
    static func objects(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { text in
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                XCTFail("not a JSON object: \(text)", file: file, line: line)
                return nil
            }
            return object
        }
    }

    /// The objects whose `event` is `kind`.
    static func events(_ text: String, _ kind: String, file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        objects(text, file: file, line: line).filter { $0["event"] as? String == kind }
    }
}

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

    /// Every round-trip figure of `ping --json` events (a reply's `rtt_ms`, a summary's
    /// `min`, `avg`, `max`, `mdev`, each of `rtts_ms`), with the event that holds it.
    static func roundTrips(_ events: [[String: Any]]) -> [(event: String, milliseconds: Double)] {
        var figures: [(String, Double)] = []
        for event in events {
            let name = event["event"] as? String ?? "?"
            if let value = event["rtt_ms"] as? Double { figures.append((name, value)) }
            if let object = event["rtt_ms"] as? [String: Any] {
                for key in ["min", "avg", "max", "mdev"] { if let value = object[key] as? Double { figures.append((name, value)) } }
            }
            for value in event["rtts_ms"] as? [Any] ?? [] { if let value = value as? Double { figures.append((name, value)) } }
        }
        return figures
    }

    /// Whether a figure in milliseconds is a whole number of microseconds (one precision
    /// for every event and summary).
    static func isWholeMicroseconds(_ milliseconds: Double) -> Bool {
        let microseconds = milliseconds * 1000
        return abs(microseconds - microseconds.rounded()) < 1e-6
    }

    /// The objects whose `event` is `kind`.
    static func events(_ text: String, _ kind: String, file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        objects(text, file: file, line: line).filter { $0["event"] as? String == kind }
    }
}

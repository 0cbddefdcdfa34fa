import ReachCommandLine
import ReachSystem
import ReachCore

/// A duration option's value (`--timeout 5`, `--settle 300ms`), with the one-line error a
/// bad one deserves; the option's name says which value was wrong.
enum DurationArgument {
    /// A duration that may be 0 (`--settle 0`).
    static func parse(_ text: String, option: String) throws -> TimeSpan {
        let span: TimeSpan
        do {
            span = try TimeSpan.parse(text)
        } catch .notADuration {
            throw UsageError("\(option): '\(PrintableText.escaped(text))' is not a duration (use 5, 1.5s, 300ms or 1m)")
        } catch .outOfRange {
            throw UsageError("\(option): '\(PrintableText.escaped(text))' is longer than \(TimeSpan.maximum)")
        }
        return span
    }

    /// A duration of more than 0 (timeouts, intervals): at least a millisecond, the unit
    /// durations are kept in (`0.0001` is 0 ms).
    static func positive(_ text: String, option: String) throws -> TimeSpan {
        let span = try parse(text, option: option)
        guard span.milliseconds > 0 else {
            throw UsageError("\(option) must be more than 0, at least 1ms: '\(PrintableText.escaped(text))'")
        }
        return span
    }
}

import ReachCommandLine
import ReachSystem

/// A duration option's type (`--timeout 5`, `--settle 300ms`): the CLI's grammar
/// (`DurationGrammar.commandLine`), with the one-line error a bad value deserves; the reader
/// names the option.
extension ValueType where Value == TimeSpan {
    /// A duration that may be 0 (`--settle 0`).
    static var duration: ValueType {
        ValueType(written: written, read: read)
    }

    /// A duration of more than 0 (timeouts, intervals): at least a millisecond, the unit
    /// durations are kept in (`0.0001` is 0 ms).
    static var positiveDuration: ValueType {
        ValueType(
            written: written,
            read: { text in
                let span = read(text)
                guard case .success(let value) = span, value.milliseconds <= 0 else { return span }
                return .failure(.said(" must be more than 0, at least 1ms: '\(PrintableText.escaped(text))'"))
            })
    }

    private static func read(_ text: String) -> Result<TimeSpan, ValueProblem> {
        do throws(TimeSpan.ParseError) {
            return .success(try TimeSpan.parse(text))
        } catch {
            switch error {
            case .notADuration:
                return .failure(.said(": '\(PrintableText.escaped(text))' is not a duration (use 5, 1.5s, 300ms or 1m)"))
            case .outOfRange:
                return .failure(.said(": '\(PrintableText.escaped(text))' is longer than \(TimeSpan.maximum)"))
            }
        }
    }

    /// Help's default: "5s", and "0" alone, as Go's grammar writes it without a unit.
    private static func written(_ span: TimeSpan) -> String {
        span == .zero ? "0" : span.description
    }
}

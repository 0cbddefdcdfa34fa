import ReachCore
import ReachSystem

/// Turns command-line words into targets and durations, with the one-line error each deserves.
enum TargetParser {
    static func address(_ text: String) throws -> IPAddress {
        do {
            return try IPAddress.parse(text).resolvingZone()
        } catch .notAnAddress {
            throw UsageError("invalid IP address '\(printable(text))'")
        } catch .unknownZone(let zone) {
            throw UsageError("unknown interface '\(printable(zone))' in '\(printable(text))'")
        } catch .zoneOnIPv4 {
            throw UsageError("a zone (%interface) is for IPv6 addresses only: '\(printable(text))'")
        }
    }

    static func validateHostName(_ name: String) throws {
        do {
            try HostName.validate(name)
        } catch {
            throw UsageError("invalid host name '\(printable(name))': \(error)")
        }
    }

    static func positiveDuration(_ text: String, option: String) throws -> TimeSpan {
        let span = try duration(text, option: option)
        guard span.milliseconds > 0 else { throw UsageError("\(option) must be more than 0: '\(printable(text))'") }
        return span
    }

    /// A duration that may be 0 (`--settle 0`).
    static func duration(_ text: String, option: String) throws -> TimeSpan {
        let span: TimeSpan
        do {
            span = try TimeSpan.parse(text)
        } catch .notADuration {
            throw UsageError("\(option): '\(printable(text))' is not a duration (use 5, 1.5s, 300ms or 1m)")
        } catch .outOfRange {
            throw UsageError("\(option): '\(printable(text))' is longer than \(TimeSpan.maximum)")
        }
        return span
    }

    static func probe(_ text: String) throws -> ProbeSpec {
        do {
            return try ProbeSpec.parse(text)
        } catch {
            throw UsageError(error.message(quoting: printable))
        }
    }

    /// The argument as it can be shown on one line: control characters escaped, long text cut.
    static func printable(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars.prefix(80) {
            if scalar.value < 0x20 || scalar.value == 0x7f {
                // Two digits always: "\x1" followed by "b" would read as "\x1b".
                let hex = String(scalar.value, radix: 16)
                output += (hex.count == 1 ? "\\x0" : "\\x") + hex
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return text.unicodeScalars.count > 80 ? output + "..." : output
    }
}

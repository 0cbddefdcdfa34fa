import ReachCommandLine
import ReachCore
import ReachSystem

/// One command-line word, as `reach` checks a target or a duration: an address literal
/// (with a zone), a host name, a duration — through TargetArgument and the duration
/// options' declarations, which word the error line. Successful parses must round-trip; every error must print on
/// one line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommandLine(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let word = FuzzInput.argument(start, count)
    // The same bytes as a --targets-from file: every target one line of valid UTF-8.
    parse("TargetList.lines") {
        for target in try TargetList.lines(FuzzInput.bytes(start, count), source: "fuzz", room: 100).texts {
            precondition(!target.isEmpty && !target.contains("\n") && !target.contains("#"), "target '\(target)'")
        }
    }
    parse("TargetList.generate") {
        let targets = try TargetList.generate(word)
        precondition(targets.count <= TargetList.maximumTargets, "\(targets.count) targets from '\(word)'")
    }
    parse("TargetArgument.address") {
        let address = try TargetArgument.address(word)
        precondition(address.bytes.count == address.family.addressLength, "address of the wrong length")
        // What reach prints parses back to the same address (inet_ntop then inet_pton).
        let again = try? IPAddress.parse(address.description)
        precondition(again?.bytes == address.bytes && again?.family == address.family, "'\(word)' does not round-trip")
    }
    parse("TargetArgument.validateHostName") {
        try TargetArgument.validateHostName(word)
        precondition(!word.isEmpty && word.utf8.count <= 254, "accepted '\(word)'")
    }
    parse("a duration option") {
        var span = TimeSpan.zero
        _ = try durationOptions.parse(["--settle", word], into: &span)
        precondition(span.milliseconds >= 0 && span.milliseconds <= TimeSpan.maximum.milliseconds, "\(span) out of range")
        _ = span.pollTimeout
        // The text reach shows for a span parses back to the same span.
        precondition((try? TimeSpan.parse(span.description)) == span, "\(span) does not round-trip")
        _ = try durationOptions.parse(["--timeout", word], into: &span)
    }
    return 0
}

/// The two duration types, declared as the commands declare `--settle` and `--timeout`.
private let durationOptions = CommandLineDeclaration<TimeSpan>(
    about: CommandAbout(path: "reach fuzz", abstract: "Durations."), operand: .none,
    options: [
        .typed(long: "settle", .duration, valueName: "duration", help: nil) { $0 = $1 },
        .typed(long: "timeout", .positiveDuration, valueName: "duration", help: nil) { $0 = $1 },
    ])

/// Runs one parse: it succeeds, or throws a UsageError whose line is fit to print.
private func parse(_ what: String, _ body: () throws -> Void) {
    do {
        try body()
    } catch let error as UsageError {
        checkOneLine(error.message)
    } catch {
        preconditionFailure("\(what) threw \(error), not a UsageError")
    }
}

/// An error line: no line break or other control character, and bounded however long the
/// word: a quote of it stops at 80 characters, each at most 4 when escaped (`\x17`), and a
/// line quotes it at most twice ("unknown interface 'ZONE' in 'WORD'").
private func checkOneLine(_ message: String) {
    precondition(!message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }, "control character in '\(message)'")
    precondition(message.unicodeScalars.count <= 2 * (80 * 4 + 3) + 100, "error line of \(message.unicodeScalars.count) characters")
}

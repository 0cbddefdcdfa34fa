/// Bad input found after parsing: a literal that is no address, a name that can be no name.
/// In a file of its own, importing nothing, so `make fuzz` can build the argument checks
/// (TargetArgument, DurationArgument, ProbeSpecArgument) without the argument parser.
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

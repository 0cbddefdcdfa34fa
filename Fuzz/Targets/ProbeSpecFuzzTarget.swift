import ReachCommandLine
import ReachCore
import ReachSystem

/// One `--probe` argument, through ProbeSpecArgument.parse (ProbeSpec.parse and the error line).
/// Besides "no trap": what parses prints as a spec that parses back to itself, and errors
/// are UsageErrors fit for one line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProbeSpec(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let word = FuzzInput.argument(start, count)
    let spec: ProbeSpec
    do {
        spec = try ProbeSpecArgument.parse(word)
    } catch let error as UsageError {
        precondition(
            !error.message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f },
            "control character in '\(error.message)'")
        // The spec is quoted cut at 80 characters (each at most 4 when escaped), then the reason.
        precondition(error.message.unicodeScalars.count <= 80 * 4 + 3 + 100, "error line of \(error.message.count) characters")
        return 0
    } catch {
        preconditionFailure("ProbeSpecArgument.parse threw \(error), not a UsageError")
    }
    precondition(!spec.host.isEmpty, "a probe with no host")
    if case .tcp(_, let port) = spec { precondition(port > 0, "port 0") }
    if case .http(_, let port, let path) = spec { precondition(port > 0 && path.hasPrefix("/"), "port \(port), path '\(path)'") }
    let again = try? ProbeSpec.parse(spec.description)
    precondition(again == spec, "'\(word)' parses to \(spec), which parses back to \(String(describing: again))")
    return 0
}

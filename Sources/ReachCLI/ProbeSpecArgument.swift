import ReachCommandLine
import ReachCore

/// One `--probe` value (icmp:HOST, tcp:HOST:PORT, http://HOST[:PORT]/PATH), with the
/// one-line error a bad one deserves.
enum ProbeSpecArgument {
    static func parse(_ text: String) throws -> ProbeSpec {
        do {
            return try ProbeSpec.parse(text)
        } catch {
            throw UsageError(error.message(quoting: PrintableText.escaped))
        }
    }
}

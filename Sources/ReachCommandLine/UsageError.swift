/// A command line, or a value on it, that the program cannot take: one line for the user,
/// exit 64 (sysexits.h EX_USAGE). The one type both executables use.
public struct UsageError: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

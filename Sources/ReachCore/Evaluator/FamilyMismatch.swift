import ReachSystem

/// A target of one family where the other was asked for (-4 or -6).
public struct FamilyMismatch: Error, Equatable, Sendable, CustomStringConvertible {
    /// The target as the user wrote it.
    public var target: String
    public var required: AddressFamily

    public init(target: String, required: AddressFamily) {
        self.target = target
        self.required = required
    }

    public var description: String { "\(target) is not an \(required.label) address" }

    /// Throws when `address` is not of `family`; nil asks for no family in particular.
    public static func check(_ address: IPAddress, against family: AddressFamily?, target: String) throws(FamilyMismatch) {
        if let family, family != address.family { throw FamilyMismatch(target: target, required: family) }
    }
}
